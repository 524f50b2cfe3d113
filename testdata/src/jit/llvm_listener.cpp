// llvm_listener.cpp — how an LLVM MCJIT/RuntimeDyld host hands its objects to
// libjitreg instead of LLVM's own GDB registration listener.  The library
// build does not depend on LLVM; where configure finds llvm-dev, this file is
// compiled into tests/helpers/mcjit_host (which includes it) and exercised by
// tests/cli/mcjit.sh: real MCJIT objects, dumped and symbolized.  In a host:
//
//   c++ -c $(llvm-config --cxxflags) llvm_listener.cpp
//   ... link with $(llvm-config --ldflags --libs mcjit) $(pkg-config --libs libjitreg)
//
//   // MCJIT registers LLVM's GDB listener by itself, with its own list in
//   // libLLVM: remove it, so that each object is registered once.
//   engine->UnregisterJITEventListener(
//           llvm::JITEventListener::createGDBRegistrationListener());
//   engine->RegisterJITEventListener(new JitregListener());
//
// With JITREG_DUMP_DIR=/some/dir every object is also written as .elf + .meta
// for `symprof convert --jit-dir /some/dir`.
#include <jitreg.h>

#include <llvm/ExecutionEngine/JITEventListener.h>
#include <llvm/ExecutionEngine/RuntimeDyld.h>
#include <llvm/Object/ObjectFile.h>

#include <map>
#include <mutex>

class JitregListener : public llvm::JITEventListener {
public:
	void notifyObjectLoaded(ObjectKey key, const llvm::object::ObjectFile &obj,
				const llvm::RuntimeDyld::LoadedObjectInfo &info) override
	{
		// The debug object is a copy of OBJ whose section addresses are
		// the run-time ones: exactly what debuggers and symprof need.
		llvm::object::OwningBinary<llvm::object::ObjectFile> dbg =
			info.getObjectForDebug(obj);
		if (!dbg.getBinary())
			return;
		llvm::MemoryBufferRef buf = dbg.getBinary()->getMemoryBufferRef();
		jitreg_options opt = {};
		opt.size = sizeof(opt);
		opt.flags = JITREG_COPY; // DBG is freed when it goes out of scope
		jitreg_entry *entry = nullptr;
		if (jitreg_register(buf.getBufferStart(), buf.getBufferSize(), &opt, &entry) != 0)
			return;
		std::lock_guard<std::mutex> g(lock_);
		entries_[key] = entry;
	}

	void notifyFreeingObject(ObjectKey key) override
	{
		jitreg_entry *entry = nullptr;
		{
			std::lock_guard<std::mutex> g(lock_);
			auto it = entries_.find(key);
			if (it == entries_.end())
				return;
			entry = it->second;
			entries_.erase(it);
		}
		jitreg_unregister(entry);
	}

private:
	std::mutex lock_;
	std::map<ObjectKey, jitreg_entry *> entries_;
};
