/* perfbusy.h — the plan of the perf.data fixture (tests/cli/perf.sh restates it).
 *
 * Two threads (the main thread and one named "pbworker") each run rounds of the same
 * work loop split between three functions in three objects:
 *
 *   busy_main    (perfbusy, the PIE)            5 parts  50%
 *   busy_shared  (libperfshared.so, linked)     3 parts  30%
 *   busy_plugin  (libperfplugin.so, dlopen()ed) 2 parts  20%
 *
 * Each busy function runs the loop in an always-inlined helper (spin_main, spin_shared,
 * spin_plugin), so a frame-pointer stack ends in the busy function and the inline frame
 * is visible only through DWARF.  Each busy function also calls pb_step() once, so the
 * compiler gives it a frame even at -O2 (a frameless leaf would hide its caller from a
 * frame-pointer walk). */
#ifndef PERFBUSY_H
#define PERFBUSY_H

#define PB_MAIN 5
#define PB_SHARED 3
#define PB_PLUGIN 2
#define PB_CHUNK 50000L
#define PB_THREAD_MS 700 /* CPU time each thread spends in its rounds */

/* N steps of a multiply-add chain kept in a register; no memory access. */
#define PB_LOOP(x, n)                                                                  \
	do {                                                                           \
		for (long pb_i_ = 0; pb_i_ < (n); pb_i_++) {                           \
			(x) = (x) * 6364136223846793005UL + 1442695040888963407UL;     \
			__asm__ volatile("" : "+r"(x));                                \
		}                                                                      \
	} while (0)

/* Defines the busy function BUSY running the loop in its always-inlined helper SPIN. */
#define PB_BUSY(spin, busy)                                                            \
	static inline __attribute__((always_inline)) void spin(long n)                 \
	{                                                                              \
		unsigned long x = (unsigned long)n;                                    \
		PB_LOOP(x, n);                                                         \
		pb_step(x);                                                            \
	}                                                                              \
	__attribute__((noinline)) void busy(long n)                                    \
	{                                                                              \
		spin(n);                                                               \
		pb_step(0);                                                            \
	}

#ifdef __cplusplus
extern "C" {
#endif
void pb_step(unsigned long x);       /* perfshared.c */
void busy_shared(long n);            /* perfshared.c */
void busy_plugin(long n);            /* perfplugin.c */
void busy_main(long n);              /* perfbusy.c */
typedef void (*pb_busy_fn)(long n);  /* busy_plugin, found with dlsym */
#ifdef __cplusplus
}
#endif

#endif
