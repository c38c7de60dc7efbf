import HostKit

#if canImport(Glibc)
  import Glibc
#endif

LargeAllocations.returnToSystemWhenFreed()
let console = Console()
let code = HostCLI(console: console).run(Array(CommandLine.arguments.dropFirst()))
exit(code)
