/// An instance whose call in progress can be ended from another thread: a worker process is
/// killed. The call then fails with a `loss`, and its store recovers as from a crash.
///
/// `interrupt` is the one member callable from any thread, while another thread is in a call.
public protocol InterruptibleInstance: PluginInstance {
  /// Ends the call in progress, losing the instance; does nothing when no call is in progress.
  func interrupt()
}
