// Linked for the plugins: a Swift plugin needs it, and loaded after the sandbox its opens would
// each go through the sandbox's supervisor.
import Dispatch
import WorkerKit

#if canImport(Glibc)
  import Glibc
#endif

// `host-worker __worker PARENT-PID`: serves one feature instance for the host process
// PARENT-PID, as `host __worker` does, but without Foundation and the rest of the host, so a
// worker starts in about half the time. Started by the host, never by a person.
let arguments = CommandLine.arguments
guard arguments.count == 3, arguments[1] == "__worker", let parent = pid_t(arguments[2]), parent > 1,
  fcntl(3, F_GETFD) >= 0, fcntl(WorkerServer.channelDescriptor, F_GETFD) >= 0
else {
  let message =
    "error: 'host-worker' serves a feature for a host process and is not run by hand\n"
    + "help: run a feature with 'host run ID'\n"
  _ = message.withCString { write(2, $0, strlen($0)) }
  exit(64)
}
WorkerServer.serve(descriptor: 3, channelDescriptor: WorkerServer.channelDescriptor, parent: parent)
