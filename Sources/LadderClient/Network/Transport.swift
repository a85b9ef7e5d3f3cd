public import Foundation

/// How the client downloads a file. The real one is `URLSessionTransport`; tests and apps with
/// their own networking stack supply another.
public protocol LadderTransport: Sendable {
    /// The response to `request`: its status and headers first, then its body in chunks as they
    /// arrive. The client judges the status itself (200, 206 for a range, or an error). The
    /// download stops when the stream's consumer stops listening.
    func download(_ request: TransportRequest) -> AsyncThrowingStream<TransportEvent, any Error>
}

/// A GET request: a URL and the headers to send with it (`Range` and `If-Range` when the client
/// resumes a download).
public struct TransportRequest: Sendable, Hashable {
    public var url: URL
    public var headers: [String: String]

    public init(url: URL, headers: [String: String] = [:]) {
        self.url = url
        self.headers = headers
    }
}

/// What a transport reports about one request.
public enum TransportEvent: Sendable, Equatable {
    /// The response's status and headers (names in lower case), before any of its body.
    case response(status: Int, headers: [String: String])
    /// The next bytes of the body.
    case data(Data)
}

/// Downloads with URLSession (FoundationNetworking on Linux), delivering each chunk as it
/// arrives so that a progressive JPEG can be shown scan by scan.
///
/// It owns its session and invalidates it when it is released: the session holds its delegate
/// (a separate object) strongly, not the transport, so a client and its transport go away
/// together.
public final class URLSessionTransport: LadderTransport {
    /// The session every download runs in.
    public let session: URLSession
    private let delegate: SessionDelegate

    /// `configuration` defaults to an ephemeral one without URLCache: the client keeps its own,
    /// checked, caches.
    public init(configuration: URLSessionConfiguration? = nil) {
        let configuration =
            configuration
            ?? {
                let ephemeral = URLSessionConfiguration.ephemeral
                ephemeral.urlCache = nil
                ephemeral.requestCachePolicy = .reloadIgnoringLocalCacheData
                return ephemeral
            }()
        delegate = SessionDelegate()
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit { session.invalidateAndCancel() }

    public func download(_ request: TransportRequest) -> AsyncThrowingStream<TransportEvent, any Error> {
        AsyncThrowingStream { continuation in
            var urlRequest = URLRequest(url: request.url)
            for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
            let task = session.dataTask(with: urlRequest)
            delegate.register(task, continuation)
            continuation.onTermination = { _ in task.cancel() }
            task.resume()
        }
    }
}

/// URLSession's delegate for one transport: it hands each task's response and data to the
/// stream that asked for it.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: `continuations` is only touched under `lock`.
    private let lock = NSLock()
    private var continuations: [Int: AsyncThrowingStream<TransportEvent, any Error>.Continuation] = [:]

    func register(_ task: URLSessionTask, _ continuation: AsyncThrowingStream<TransportEvent, any Error>.Continuation) {
        lock.withLock { continuations[task.taskIdentifier] = continuation }
    }

    private func continuation(of task: URLSessionTask) -> AsyncThrowingStream<TransportEvent, any Error>.Continuation? {
        lock.withLock { continuations[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        var headers: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        continuation(of: dataTask)?.yield(.response(status: http?.statusCode ?? 200, headers: headers))
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        continuation(of: dataTask)?.yield(.data(data))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let continuation = lock.withLock { continuations.removeValue(forKey: task.taskIdentifier) }
        let url = task.originalRequest?.url ?? URL(fileURLWithPath: "/")
        continuation?.finish(throwing: error.map { LadderError.transport(url: url, reason: $0.localizedDescription) })
    }
}
