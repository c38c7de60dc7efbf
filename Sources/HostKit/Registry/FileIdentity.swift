#if canImport(Glibc)
  import Glibc
#endif

/// What says a file is still the one scanned: its device, inode, size and modification time to
/// the nanosecond. A rebuilt or replaced plugin changes at least one of them.
public struct FileIdentity: Sendable, Hashable {
  public var device: UInt64
  public var inode: UInt64
  public var size: Int64
  public var modifiedSeconds: Int64
  public var modifiedNanoseconds: Int64

  public init(device: UInt64, inode: UInt64, size: Int64, modifiedSeconds: Int64, modifiedNanoseconds: Int64) {
    self.device = device
    self.inode = inode
    self.size = size
    self.modifiedSeconds = modifiedSeconds
    self.modifiedNanoseconds = modifiedNanoseconds
  }

  /// The identity `stat` gave.
  public init(_ info: stat) {
    self.init(
      device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
      modifiedSeconds: Int64(info.st_mtim.tv_sec), modifiedNanoseconds: Int64(info.st_mtim.tv_nsec))
  }

  /// As the cache writes it: `DEVICE:INODE:SIZE:SECONDS.NANOSECONDS`.
  public var key: String { "\(device):\(inode):\(size):\(modifiedSeconds).\(modifiedNanoseconds)" }
}
