/* perfplugin.c — the dlopen()ed library of the perf.data fixture (perfbusy.h). */
#include "perfbusy.h"

PB_BUSY(spin_plugin, busy_plugin)
