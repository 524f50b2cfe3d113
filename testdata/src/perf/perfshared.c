/* perfshared.c — the linked library of the perf.data fixture (perfbusy.h). */
#include "perfbusy.h"

volatile unsigned long pb_sink;

__attribute__((noinline)) void pb_step(unsigned long x)
{
	pb_sink = x;
}

PB_BUSY(spin_shared, busy_shared)
