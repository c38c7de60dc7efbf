import HostKit

#if canImport(Glibc)
  import Glibc
#endif

LargeAllocations.returnToSystemWhenFreed()
// A child the image views start per image (fetch, decode, thumbnail): no console, no arguments parsed.
if CommandLine.arguments.count > 1, CommandLine.arguments[1] == ImageChild.command {
  exit(ImageChild.run(Array(CommandLine.arguments.dropFirst(2))))
}

let console = Console()
let code = HostCLI(console: console).run(Array(CommandLine.arguments.dropFirst()))
// A worker started ahead that no feature took (a usage error, help; Sources/CEarlyWorker).
InstanceFactory.discardPrepared()
exit(code)
