// mcjit_host.cpp — a real LLVM MCJIT host for tests/cli/mcjit.sh: parses the
// bitcode or IR files given on the command line (testdata/src/jit/mcjit_funcs.c
// and mcjit_funcs2.c compiled by clang), JIT-compiles each module into an
// object of its own with MCJIT and a SectionMemoryManager, hands every object
// to libjitreg through the listener of testdata/src/jit/llvm_listener.cpp
// (included below, so the example is the code under test; JITREG_DUMP_DIR
// makes it write each object as .elf + .meta), and calls mc_entry(1), then
// mc2_entry(3) when a module defines it.  The JIT code calls back into
// host_record, which walks the frame-pointer chain up to main and keeps the
// stack; at the end the stacks go to PROFILE as raw stacks
// (docs/raw-stacks.md), value = the tag host_record was called with, followed
// by a copy of /proc/self/maps (the JIT code lives in anonymous memory there).
// Prints "result N" with mc_entry's return value (and "result2 N" with
// mc2_entry's).  With --wait it then prints "ready PID EXE" and waits for end
// of file on stdin before tearing the engine down, so that `symprof jit dump
// --pid` can read the live process.  With --llvm-gdb the objects go to LLVM's
// own GDB registration listener (as in lli) instead of libjitreg.  With
// --function-sections every function gets a code section of its own, as in
// objects of C++ code with many template instances.  With --perf-jit LLVM's
// PerfJITEventListener is registered as well: it writes
// $JITDUMPDIR/.debug/jit/llvm-IR-jit-DATE-XXXXXX/jit-PID.dump (exit status 3
// when this libLLVM was built without it).
//
//   mcjit_host [--wait] [--llvm-gdb] [--function-sections] [--perf-jit] MODULE.bc... PROFILE
#include "testdata/src/jit/llvm_listener.cpp"

#include <llvm/ExecutionEngine/ExecutionEngine.h>
#include <llvm/ExecutionEngine/MCJIT.h>
#include <llvm/ExecutionEngine/SectionMemoryManager.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/ManagedStatic.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetOptions.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

namespace {

const int max_stacks = 8;
const int max_depth = 64;

struct stack {
	int64_t tag;
	int depth;
	uintptr_t pc[max_depth];
};

// Written by host_record, read by main; the test is single-threaded.
stack stacks[max_stacks];
int n_stacks;
uintptr_t main_fp;         // main's frame: the walk stops there
uintptr_t stack_lo, stack_hi; // the main thread's stack

bool find_stack_bounds()
{
	pthread_attr_t attr;
	void *addr;
	size_t size;
	if (pthread_getattr_np(pthread_self(), &attr) != 0)
		return false;
	bool ok = pthread_attr_getstack(&attr, &addr, &size) == 0;
	pthread_attr_destroy(&attr);
	stack_lo = (uintptr_t)addr;
	stack_hi = stack_lo + size;
	return ok;
}

// An address inside the caller: the leaf of the recorded stack.
__attribute__((noinline)) uintptr_t current_pc()
{
	return (uintptr_t)__builtin_return_address(0);
}

} // namespace

// Called by the JIT code (mcjit_funcs.c); records the stack, leaf first:
// an address in host_record, then the return address of every frame of the
// chain (frame record {previous frame pointer, return address}, as on
// x86-64 and AArch64) until the frame of main.
extern "C" __attribute__((noinline)) int64_t host_record(int64_t tag)
{
	if (n_stacks < max_stacks) {
		stack *s = &stacks[n_stacks++];
		s->tag = tag;
		s->depth = 0;
		s->pc[s->depth++] = current_pc();
		uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
		while (s->depth < max_depth && fp >= stack_lo && fp + 16 <= stack_hi &&
		       fp % sizeof(uintptr_t) == 0 && fp != main_fp) {
			const uintptr_t *rec = (const uintptr_t *)fp;
			if (!rec[1])
				break;
			s->pc[s->depth++] = rec[1];
			if (rec[0] <= fp)
				break;
			fp = rec[0];
		}
	}
	return tag * 10;
}

// The host function that enters the JIT code.
extern "C" __attribute__((noinline)) int64_t host_run(int64_t (*fn)(int64_t), int64_t arg)
{
	int64_t r = fn(arg);
	// Not a tail call: this frame stays on the stack during FN.
	__asm__ volatile("" : : "r"(r) : "memory");
	return r;
}

static bool write_profile(const char *path)
{
	FILE *out = fopen(path, "w");
	if (!out)
		return false;
	fprintf(out, "# symprof raw stacks v1\n# written by mcjit_host\naddresses: return\n");
	for (int i = 0; i < n_stacks; i++) {
		fprintf(out, "%lld @", (long long)stacks[i].tag);
		for (int k = 0; k < stacks[i].depth; k++)
			fprintf(out, " 0x%llx", (unsigned long long)stacks[i].pc[k]);
		fputc('\n', out);
	}
	fprintf(out, "--- Memory map: ---\n");
	FILE *maps = fopen("/proc/self/maps", "r");
	if (!maps) {
		fclose(out);
		return false;
	}
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), maps)) > 0)
		fwrite(buf, 1, n, out);
	fclose(maps);
	return fclose(out) == 0;
}

int main(int argc, char **argv)
{
	main_fp = (uintptr_t)__builtin_frame_address(0);
	bool wait_eof = false, llvm_gdb = false, function_sections = false, perf_jit = false;
	int a = 1;
	for (; a < argc && argv[a][0] == '-' && argv[a][1] == '-'; a++) {
		if (!strcmp(argv[a], "--wait"))
			wait_eof = true;
		else if (!strcmp(argv[a], "--llvm-gdb"))
			llvm_gdb = true;
		else if (!strcmp(argv[a], "--function-sections"))
			function_sections = true;
		else if (!strcmp(argv[a], "--perf-jit"))
			perf_jit = true;
		else
			break;
	}
	if (argc - a < 2) {
		fprintf(stderr, "usage: mcjit_host [--wait] [--llvm-gdb] [--function-sections] [--perf-jit] MODULE.bc... PROFILE\n");
		return 2;
	}
	const char *profile_path = argv[argc - 1];
	if (!find_stack_bounds()) {
		fprintf(stderr, "mcjit_host: cannot find the stack's bounds\n");
		return 1;
	}

	llvm::InitializeNativeTarget();
	llvm::InitializeNativeTargetAsmPrinter();
	llvm::sys::DynamicLibrary::AddSymbol("host_record", (void *)&host_record);

	int rc = 1;
	{
		// The listener outlives the engine, whose destructor tells it
		// about every object it frees.
		JitregListener listener;
		llvm::LLVMContext ctx;
		std::vector<std::unique_ptr<llvm::Module>> mods;
		for (int i = a; i < argc - 1; i++) {
			llvm::SMDiagnostic diag;
			mods.push_back(llvm::parseIRFile(argv[i], diag, ctx));
			if (!mods.back()) {
				diag.print("mcjit_host", llvm::errs());
				return 1;
			}
		}
		std::string err;
		llvm::TargetOptions topt;
		topt.FunctionSections = function_sections;
		std::unique_ptr<llvm::ExecutionEngine> engine(
			llvm::EngineBuilder(std::move(mods[0]))
				.setTargetOptions(topt)
				.setEngineKind(llvm::EngineKind::JIT)
				.setErrorStr(&err)
				.setMCJITMemoryManager(std::make_unique<llvm::SectionMemoryManager>())
				.create());
		if (!engine) {
			fprintf(stderr, "mcjit_host: no MCJIT engine: %s\n", err.c_str());
			return 1;
		}
		// MCJIT registers LLVM's own GDB listener, whose list lives in
		// libLLVM: keep only libjitreg's, or with --llvm-gdb only LLVM's.
		if (!llvm_gdb) {
			engine->UnregisterJITEventListener(
				llvm::JITEventListener::createGDBRegistrationListener());
			engine->RegisterJITEventListener(&listener);
		}
		if (perf_jit) {
			llvm::JITEventListener *perf = llvm::JITEventListener::createPerfJITEventListener();
			if (!perf) {
				fprintf(stderr, "mcjit_host: this LLVM has no PerfJITEventListener\n");
				return 3;
			}
			engine->RegisterJITEventListener(perf);
		}
		for (size_t i = 1; i < mods.size(); i++)
			engine->addModule(std::move(mods[i]));
		engine->finalizeObject();
		uint64_t addr = engine->getFunctionAddress("mc_entry");
		if (!addr) {
			fprintf(stderr, "mcjit_host: no module defines mc_entry\n");
			return 1;
		}
		int64_t result = host_run((int64_t(*)(int64_t))addr, 1);
		uint64_t addr2 = engine->getFunctionAddress("mc2_entry");
		int64_t result2 = addr2 ? host_run((int64_t(*)(int64_t))addr2, 3) : 0;
		if (!write_profile(profile_path)) {
			fprintf(stderr, "mcjit_host: cannot write %s\n", profile_path);
			return 1;
		}
		printf("result %lld\n", (long long)result);
		if (addr2)
			printf("result2 %lld\n", (long long)result2);
		if (wait_eof) {
			// Let a reader of the same user attach under Yama.
			prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
			char exe[4096];
			ssize_t l = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
			exe[l > 0 ? l : 0] = '\0';
			printf("ready %ld %s\n", (long)getpid(), exe);
			fflush(stdout);
			char c;
			while (read(0, &c, 1) > 0)
				;
		}
		fflush(stdout);
		rc = 0;
	}
	llvm::llvm_shutdown();
	return rc;
}
