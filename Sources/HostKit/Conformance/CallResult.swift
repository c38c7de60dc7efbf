import FeatureABI

/// What one call on an instance returned: its status, the instance's `last_error` when it failed,
/// and the string it handed back (snapshot, render), as raw bytes.
struct CallResult: Equatable {
  var status: fh_status
  var message: String = ""
  var output: [UInt8] = []
  var changed = false

  var isOK: Bool { status == fh_status(FH_OK) }

  /// `FH_ERR_BAD_ACTION (1): <message>`, for reasons.
  var described: String {
    let name = Self.statusName(status)
    return message.isEmpty ? name : "\(name): \(ConformanceText.quote(message, limit: 120))"
  }

  static func statusName(_ status: fh_status) -> String {
    switch Int(status) {
    case Int(FH_OK): "FH_OK"
    case Int(FH_ERR_BAD_ACTION): "FH_ERR_BAD_ACTION"
    case Int(FH_ERR_BAD_STATE): "FH_ERR_BAD_STATE"
    case Int(FH_ERR_BAD_CONFIG): "FH_ERR_BAD_CONFIG"
    case Int(FH_ERR_LIFECYCLE): "FH_ERR_LIFECYCLE"
    case Int(FH_ERR_INTERNAL): "FH_ERR_INTERNAL"
    default: "status \(status)"
    }
  }
}
