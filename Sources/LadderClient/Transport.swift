public import Foundation

/// How the client downloads a file. The real one is `URLSessionTransport`; tests and apps with
/// their own networking stack supply another.
public protocol LadderTransport: Sendable {
    /// The body of `url` in chunks, as they arrive. The stream throws `LadderError.http` for any
    /// status but 200, and stops the download when its consumer stops listening.
    func download(_ url: URL) -> AsyncThrowingStream<Data, any Error>
}

/// Downloads with URLSession (FoundationNetworking on Linux), delivering each chunk as it
/// arrives so that a progressive JPEG can be shown scan by scan.
public final class URLSessionTransport: NSObject, LadderTransport, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: `continuations` is only touched under `lock`; `session` never changes.
    private let lock = NSLock()
    private var continuations: [Int: AsyncThrowingStream<Data, any Error>.Continuation] = [:]
    private var session: URLSession!

    /// `configuration` defaults to an ephemeral one without URLCache: the client keeps its own,
    /// checked, cache.
    public init(configuration: URLSessionConfiguration? = nil) {
        super.init()
        let configuration =
            configuration
            ?? {
                let ephemeral = URLSessionConfiguration.ephemeral
                ephemeral.urlCache = nil
                ephemeral.requestCachePolicy = .reloadIgnoringLocalCacheData
                return ephemeral
            }()
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    deinit { session.invalidateAndCancel() }

    public func download(_ url: URL) -> AsyncThrowingStream<Data, any Error> {
        AsyncThrowingStream { continuation in
            let task = session.dataTask(with: URLRequest(url: url))
            lock.withLock { continuations[task.taskIdentifier] = continuation }
            continuation.onTermination = { _ in task.cancel() }
            task.resume()
        }
    }

    private func continuation(of task: URLSessionTask) -> AsyncThrowingStream<Data, any Error>.Continuation? {
        lock.withLock { continuations[task.taskIdentifier] }
    }

    private func finish(_ task: URLSessionTask, throwing error: (any Error)?) {
        let continuation = lock.withLock { continuations.removeValue(forKey: task.taskIdentifier) }
        continuation?.finish(throwing: error)
    }

    public func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 200
        guard status == 200 else {
            finish(
                dataTask,
                throwing: LadderError.http(
                    status: status, url: dataTask.originalRequest?.url ?? URL(fileURLWithPath: "/")))
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        continuation(of: dataTask)?.yield(data)
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let url = task.originalRequest?.url ?? URL(fileURLWithPath: "/")
        finish(task, throwing: error.map { LadderError.transport(url: url, reason: $0.localizedDescription) })
    }
}
