import CSandbox
import CWorkerRing
import FeatureABI
import FeatureJSON
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The worker process's side: serves one instance's calls read from the channel it shares with
/// the host, in order, and sends the plugin's callbacks back the same way, from whatever thread
/// makes them.
///
/// Each reply is written as soon as its call returns (with the callbacks the call made before
/// it), so the host reads answers while later requests of a batch are served. An action's answer
/// is shown to the host with the next ones while more actions wait (up to `answersHeld`): one
/// publication of the ring's position, which the host's core reads, instead of one each. Before it
/// serves a request the worker says so in the shared memory: a crash is blamed on that request,
/// and the answers it wrote before are taken from the ring, shown or not.
public enum WorkerServer {
  /// The descriptors a worker process finds its socket to the host and the channel's memory on.
  public static let socketDescriptor = Int32(FH_WORKER_SOCKET_FD)
  public static let channelDescriptor = Int32(FH_WORKER_CHANNEL_FD)

  /// How long the worker spins for the next request before it sleeps on the futex.
  package static let requestSpin = 30_000

  /// Actions' answers held back at most while more actions wait: a few microseconds of a batch.
  package static let answersHeld = 32

  /// Serves the channel on `channelDescriptor` until the host closes it or destroys the
  /// instance, then leaves the process with `_exit` (the plugin's threads and destructors are not
  /// waited for). `descriptor` is the socket to the host: its doorbell.
  ///
  /// `parent` is the host's process id: the worker asks the kernel to kill it when its parent
  /// goes (PR_SET_PDEATHSIG), then leaves at once if the parent is already gone.
  public static func serve(descriptor: Int32, channelDescriptor: Int32, parent: pid_t) -> Never {
    // A parent that died before the call is caught by getppid.
    guard GNUExtensions.killWhenParentEnds(signal: SIGKILL), getppid() == parent else { _exit(70) }
    var channel = fh_channel()
    guard fh_channel_attach(channelDescriptor, descriptor, &channel) == 0 else { _exit(71) }
    close(channelDescriptor)
    let output = WorkerOutput(channel: channel)
    let target = WorkerTarget(output)
    var instance: InProcessInstance?
    var input = FrameReader()
    var begun: UInt64 = 0
    var held = 0
    while true {
      if fh_channel_worker_wait_readable(&channel, requestSpin) != 0 {
        // The host closed the channel: nothing more to serve.
        instance?.destroy()
        _exit(0)
      }
      // Actions where they lie in the ring (a call made alone, a batch); any other request, and
      // one across the ring's end, are read into `input`.
      if !input.hasBytes, let instance, serveInPlace(&channel, &begun, &held, instance: instance, output: output) {
        continue
      }
      if input.fill({ fh_channel_read(&channel, $0, $1) }) < 0 { _exit(72) }
      while input.hasBytes {
        // Holding bytes of the next request is beginning it: a crash while reading a large one
        // is its own.
        begun += 1
        fh_channel_worker_begins(&channel, begun)
        guard let frame = input.next() else {
          begun -= 1
          break
        }
        guard let request = WorkerFrame.Request(rawValue: frame.kind) else {
          output.reply(status: fh_status(FH_ERR_INTERNAL), text: "unknown request kind \(frame.kind)")
          output.flush()
          continue
        }
        var fields = frame.fields
        if request == .create {
          let path = fields.string()
          let config = fields.string()
          WorkerLaunch.adopt(environment: WorkerLaunch.readEnvironment(&fields))
          instance = create(
            path: path, config: config, grant: WorkerGrant.read(&fields), target: target, channel: output)
        } else if request == .probe {
          output.reply(status: fh_status(FH_OK), text: probe())
        } else if let instance {
          // Held back only with a whole request waiting, which is served at once.
          let holds = held < answersHeld && input.hasFrame
          let flushed = serve(request, fields: &fields, instance: instance, channel: output, holding: holds)
          held = flushed && holds ? held + 1 : 0
          if request == .destroy {
            output.flush()
            _exit(0)
          }
          if flushed { continue }
        } else {
          output.reply(
            status: fh_status(FH_ERR_LIFECYCLE), text: "\(request.name) before the worker created an instance")
        }
        // Every answer is in the ring before the next request begins: a crash loses none, so the
        // one that was begun is the next due and takes the blame.
        output.flush()
      }
    }
  }

  /// Serves the actions waiting in the ring where they lie, one after another while the next is
  /// a whole action with its NUL in one piece, and writes their answers, each held while another
  /// whole request waits (as the general way holds them, `held` counting); false, with nothing
  /// read, when the first is not such an action.
  private static func serveInPlace(
    _ channel: inout fh_channel, _ begun: inout UInt64, _ held: inout Int, instance: InProcessInstance,
    output: WorkerOutput
  ) -> Bool {
    // Bytes served and not yet taken: taken every so many actions, so that a host waiting for room
    // gets it while the run goes on, and at the end. Never the one being served (the plugin reads
    // it where it lies).
    var served: UInt32 = 0
    var count = 0
    defer { if served > 0 { fh_channel_consume(&channel, served) } }
    while true {
      var start: UnsafePointer<UInt8>?
      var more: Int32 = 0
      let size = fh_channel_peek_request(&channel, served, &start, &more)
      guard size >= 10, let frame = start else { return count > 0 }
      let kind = frame[4]
      guard kind == WorkerFrame.Request.dispatch.rawValue || kind == WorkerFrame.Request.reduce.rawValue else {
        return count > 0
      }
      let field = Int(frame[5]) | Int(frame[6]) << 8 | Int(frame[7]) << 16 | Int(frame[8]) << 24
      guard field >= 1, 9 + field == size, frame[size - 1] == 0 else { return count > 0 }
      begun += 1
      fh_channel_worker_begins(&channel, begun)
      let text = UnsafeRawPointer(frame + 9).assumingMemoryBound(to: CChar.self)
      let holds = held < answersHeld && more != 0
      do throws(PluginCallError) {
        let changed =
          try kind == WorkerFrame.Request.reduce.rawValue
          ? instance.reduce(cString: text) : instance.dispatch(cString: text)
        output.done(changed: changed, shown: !holds)
        held = holds ? held + 1 : 0
      } catch {
        output.reply(status: error.status, text: error.message)
        output.flush()
        held = 0
      }
      served += UInt32(size)
      count += 1
      if count % 16 == 0 {
        fh_channel_consume(&channel, served)
        served = 0
      }
    }
  }

  /// Applies the sandbox `grant` asks for, then loads the plugin (its constructors run sandboxed)
  /// and creates the instance. The reply's extra names the protections the system could not
  /// apply, if any.
  private static func create(
    path: String, config: String, grant: WorkerGrant?, target: WorkerTarget, channel: WorkerOutput
  ) -> InProcessInstance? {
    var off = ""
    if let grant {
      CallbackBinding.prepareLibffi()
      let notes = fcntl(SandboxNotes.descriptor, F_GETFD) >= 0 ? SandboxNotes.descriptor : -1
      do {
        off =
          try Sandbox.apply(grant.policy(noteDescriptor: notes)) { refusal in
            // A refusal of the serving thread's call is reported with that call's answer, as a
            // callback it made; another thread's goes at once.
            if fh_sandbox_noticed_thread() == channel.serverThread {
              channel.sendWithReply { WorkerTarget.frame(refusal, into: &$0) }
            } else {
              target.instanceRefused(refusal)
            }
          }
          .off ?? ""
      } catch {
        // Nothing of the plugin may run unsandboxed.
        channel.reply(status: WorkerFrame.loadFailed, text: error.message, extra: error.help ?? "")
        return nil
      }
    }
    let plugin: LoadedPlugin
    do {
      plugin = try PluginLoader.load(path)
    } catch {
      channel.reply(status: WorkerFrame.loadFailed, text: error.message, extra: error.help ?? "")
      return nil
    }
    do {
      let instance = try InProcessInstance(plugin: plugin, config: config, target: target)
      channel.reply(status: fh_status(FH_OK), text: "", extra: off)
      return instance
    } catch {
      if case .configRefused(_, _, let refusal) = error.failure as? StoreFailure {
        channel.reply(status: refusal.status, text: refusal.message)
      } else {
        channel.reply(status: WorkerFrame.loadFailed, text: error.message, extra: error.help ?? "")
      }
      return nil
    }
  }

  /// Serves one request and queues its reply; true when it also wrote it (an action's, the hot
  /// path of a piped run: one trip to the replies' lock, not two), shown to the host unless
  /// `holding`.
  private static func serve(
    _ request: WorkerFrame.Request, fields: inout FrameFields, instance: InProcessInstance, channel: WorkerOutput,
    holding: Bool
  ) -> Bool {
    do throws(PluginCallError) {
      switch request {
      case .start: try instance.start()
      case .dispatch, .reduce:
        // The action where it lies in the frame (written with its NUL), not copied.
        let reduces = request == .reduce
        let inPlace = fields.withCString { text in
          Result { () throws(PluginCallError) in
            try reduces ? instance.reduce(cString: text) : instance.dispatch(cString: text)
          }
        }
        let changed: Bool
        if let inPlace {
          changed = try inPlace.get()
        } else {
          changed = try reduces ? instance.reduce(fields.string()) : instance.dispatch(fields.string())
        }
        channel.done(changed: changed, shown: !holding)
        return true
      case .snapshot:
        // From the plugin's own buffer into the frame: a state is copied once here, not twice.
        try instance.withSnapshot { channel.reply(status: fh_status(FH_OK), utf8: $0) }
        return false
      case .restore:
        let inPlace = fields.withCString { text in
          Result { () throws(PluginCallError) in try instance.restore(cString: text) }
        }
        try (inPlace ?? Result { () throws(PluginCallError) in try instance.restore(fields.string()) }).get()
      case .render:
        channel.reply(status: fh_status(FH_OK), text: try instance.render())
        return false
      case .renderWith:
        channel.reply(status: fh_status(FH_OK), text: try instance.render(hintsJSON: fields.string()))
        return false
      case .renderStructured:
        let view = try instance.structuredView()
        channel.reply(status: fh_status(FH_OK), changed: view != nil, text: view ?? "")
        return false
      case .stop: try instance.stop()
      case .destroy: instance.destroy()
      case .create, .probe: break
      }
      channel.reply(status: fh_status(FH_OK), text: "")
    } catch {
      channel.reply(status: error.status, text: error.message)
    }
    return false
  }

  /// What this process sees, for tests: its open descriptors (and what each is), and its
  /// environment variable names.
  private static func probe() -> String {
    var descriptors: [Int] = []
    if let folder = opendir("/proc/self/fd") {
      let own = dirfd(folder)
      while let entry = readdir(folder) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if let number = Int(name), number != own { descriptors.append(number) }
      }
      closedir(folder)
    }
    let names = ProcessEnvironment.current.keys.sorted()
    let links = descriptors.sorted().map { descriptor -> JSONValue in
      var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let count = readlink("/proc/self/fd/\(descriptor)", &target, target.count - 1)
      return .string(count > 0 ? String(decoding: target[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "")
    }
    return JSONValue.object([
      "pid": JSONValue(integerLiteral: Int64(getpid())),
      "fds": .array(descriptors.sorted().map { JSONValue(integerLiteral: Int64($0)) }),
      "links": .array(links), "env": .array(names.map(JSONValue.string)),
    ]).serialized()
  }
}

/// The worker's end of the channel's two rings to the host: replies, with the callbacks the
/// serving thread makes during a call (written with the reply, so they come before it), and the
/// callbacks of the plugin's other threads, written at once, in order, under a lock of their own.
/// A full ring makes the writer wait for the host (backpressure on a fast sender): a thread that
/// floods the host with emits waits for its listener, never the serving thread.
package final class WorkerOutput: Sendable {
  private struct Pending {
    var writer = FrameWriter()
    /// The channel's writing half: only the outgoing position of this ring is used here.
    var channel: fh_channel
    /// The callbacks ring (other threads), or the replies ring (the serving thread).
    let listener: Bool
  }

  /// The serving thread's; locked only to be Sendable (it is never contended).
  private let replies: Locked<Pending>
  private let callbacks: Locked<Pending>
  /// The thread serving requests: its frames wait for the reply's flush; other threads' go at once.
  private let server = pthread_self()
  /// Its kernel id (what the sandbox's notices name).
  package let serverThread = fh_sandbox_this_thread()
  /// How long a writer spins for room before it sleeps.
  private static let roomSpin = 30_000

  package init(channel: fh_channel) {
    replies = Locked(Pending(channel: channel, listener: false))
    callbacks = Locked(Pending(channel: channel, listener: true))
  }

  package func reply(status: fh_status, changed: Bool = false, text: String, extra: String? = nil) {
    replies.withLock { pending in
      let start = pending.writer.begin(WorkerFrame.Message.reply.rawValue)
      pending.writer.int32(status)
      pending.writer.byte(changed ? 1 : 0)
      pending.writer.string(text)
      if let extra { pending.writer.string(extra) }
      pending.writer.end(at: start)
    }
  }

  /// A reply with status OK and no text, written at once: one trip to the lock for an action's
  /// answer (queue it, then flush). Not `shown`: in the ring, the host not yet told.
  package func done(changed: Bool, shown: Bool) {
    replies.withLock { pending in
      // Alone: its six bytes straight into the ring.
      if pending.writer.bytes.isEmpty, fh_channel_write_done(&pending.channel, changed ? 1 : 0, shown ? 1 : 0) != 0 {
        return
      }
      let start = pending.writer.begin(WorkerFrame.Message.done.rawValue)
      pending.writer.byte(changed ? 1 : 0)
      pending.writer.end(at: start)
      Self.write(&pending, shown: shown)
    }
  }

  /// A reply whose text is `utf8`, copied into the frame.
  package func reply(status: fh_status, utf8: UnsafeBufferPointer<UInt8>) {
    replies.withLock { pending in
      let start = pending.writer.begin(WorkerFrame.Message.reply.rawValue)
      pending.writer.int32(status)
      pending.writer.byte(0)
      pending.writer.string(utf8: utf8)
      pending.writer.end(at: start)
    }
  }

  /// Queues a callback frame: the serving thread's with its reply, any other thread's at once.
  package func send(_ build: (inout FrameWriter) -> Void) {
    guard pthread_equal(server, pthread_self()) == 0 else {
      replies.withLock { build(&$0.writer) }
      return
    }
    callbacks.withLock { pending in
      build(&pending.writer)
      Self.write(&pending)
    }
  }

  /// Queues a callback made on the serving thread's behalf by another thread while the serving
  /// thread waits for it (the sandbox's supervisor, refusing its call): sent with its reply.
  package func sendWithReply(_ build: (inout FrameWriter) -> Void) {
    replies.withLock { build(&$0.writer) }
  }

  /// Writes the replies and the serving thread's callbacks queued so far.
  package func flush() {
    replies.withLock { Self.write(&$0) }
  }

  /// Writes everything queued into its ring, waiting for room as the host reads. A host that
  /// closed the channel ends this process.
  private static func write(_ pending: inout Pending, shown: Bool = true) {
    var offset = 0
    let count = pending.writer.bytes.count
    let listener: Int32 = pending.listener ? 1 : 0
    let held = !shown && !pending.listener
    while offset < count {
      let written = pending.writer.bytes.withUnsafeBytes { bytes in
        let start = bytes.baseAddress.map { $0 + offset }
        return held
          ? fh_channel_write_held(&pending.channel, start, count - offset)
          : fh_channel_write(&pending.channel, start, count - offset, listener)
      }
      if written < 0 { _exit(72) }
      offset += written
      if offset < count && fh_channel_worker_wait_writable(&pending.channel, count - offset, roomSpin, listener) != 0 {
        _exit(0)
      }
    }
    // Room for the usual small frames is kept; a state's (megabytes) is not.
    if pending.writer.bytes.capacity > 1 << 20 {
      pending.writer.bytes = []
    } else {
      pending.writer.bytes.removeAll(keepingCapacity: true)
    }
  }
}

/// The instance's callbacks inside the worker, sent to the host as frames. Timer ids are made
/// here, so `schedule` answers at once; the host maps them to its own.
package final class WorkerTarget: InstanceCallbackTarget {
  private let output: WorkerOutput
  private let nextTimer = Atomic<UInt64>(1)

  package init(_ output: WorkerOutput) { self.output = output }

  package func instanceEmitted(_ json: String, origin: EmitOrigin) {
    output.send { writer in
      let start = writer.begin(WorkerFrame.Message.emit.rawValue)
      writer.byte(origin == .feedback ? 1 : 0)
      writer.string(json)
      writer.end(at: start)
    }
  }

  package func instanceLogged(level: LogLevel, message: String) {
    output.send { writer in
      let start = writer.begin(WorkerFrame.Message.log.rawValue)
      writer.byte(UInt8(level.rawValue))
      writer.string(message)
      writer.end(at: start)
    }
  }

  package func instanceEffectBegan() { output.send { $0.frame(WorkerFrame.Message.effectBegan.rawValue) } }

  package func instanceEffectEnded() { output.send { $0.frame(WorkerFrame.Message.effectEnded.rawValue) } }

  package func instanceEmittedStep(_ json: String) { output.send { $0.frame(WorkerFrame.Message.step.rawValue, json) } }

  package func instanceScheduled(after nanoseconds: UInt64, actions: String, origin: EmitOrigin) -> UInt64 {
    let id = nextTimer.add(1, ordering: .relaxed).oldValue
    output.send { writer in
      let start = writer.begin(WorkerFrame.Message.schedule.rawValue)
      writer.uint64(id)
      writer.uint64(nanoseconds)
      writer.byte(origin == .feedback ? 1 : 0)
      writer.string(actions)
      writer.end(at: start)
    }
    return id
  }

  package func instanceCancelledTimer(_ id: UInt64) {
    output.send { writer in
      let start = writer.begin(WorkerFrame.Message.cancel.rawValue)
      writer.uint64(id)
      writer.end(at: start)
    }
  }

  package func instanceRefused(_ refusal: SandboxRefusal) {
    output.send { Self.frame(refusal, into: &$0) }
  }

  package static func frame(_ refusal: SandboxRefusal, into writer: inout FrameWriter) {
    let start = writer.begin(WorkerFrame.Message.refused.rawValue)
    writer.byte(refusal.kind.frameByte)
    writer.string(refusal.subject)
    writer.end(at: start)
  }
}
