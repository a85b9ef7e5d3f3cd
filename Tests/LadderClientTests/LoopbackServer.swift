import Foundation

#if canImport(Darwin)
    import Darwin
    private let streamSocket = SOCK_STREAM
    private let sendFlags: Int32 = 0
#else
    import Glibc
    private let streamSocket = Int32(SOCK_STREAM.rawValue)
    private let sendFlags = Int32(MSG_NOSIGNAL)
#endif

/// A small HTTP/1.1 server on 127.0.0.1 for the client's tests: it serves a folder, answers
/// Range requests, and can be told to throttle each connection, answer 404 for some paths,
/// or serve other bytes for a path. It counts what the tests check: requests, the most served
/// at once, and bodies cut short by the client. One thread per connection; `Connection: close`.
final class LoopbackServer: @unchecked Sendable {
    // @unchecked: every mutable property is guarded by `lock`.
    struct Options {
        /// Bytes per second per connection, or nil for no limit.
        var bytesPerSecond: Int?
        /// Paths (as requested, e.g. "/ab/cdef.jpg") answered with 404.
        var missing: Set<String> = []
        /// Paths served with these bytes instead of the file's.
        var replaced: [String: [UInt8]] = [:]
        /// Microseconds before each response starts, as a distant server's round trip.
        var latency: UInt32 = 0
    }

    let root: String
    private(set) var port: UInt16 = 0
    private let listener: Int32
    private let lock = NSLock()
    private var options = Options()
    private var active = 0
    private var peak = 0
    private var served: [String] = []
    private var cutShort: [String] = []
    private var stopped = false

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    init(serving root: String) throws {
        self.root = root
        listener = socket(AF_INET, streamSocket, 0)
        guard listener >= 0 else { throw ServerError("socket: errno \(errno)") }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 1024) == 0 else { throw ServerError("bind/listen: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    struct ServerError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    func configure(_ change: (inout Options) -> Void) { lock.withLock { change(&options) } }

    /// The paths requested so far, in order.
    var requests: [String] { lock.withLock { served } }
    /// The most requests being answered at one time.
    var peakConcurrency: Int { lock.withLock { peak } }
    /// Paths whose body the client stopped reading before the end.
    var abandoned: [String] { lock.withLock { cutShort } }

    func stop() {
        let wasStopped = lock.withLock {
            defer { stopped = true }
            return stopped
        }
        guard !wasStopped else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if lock.withLock({ stopped }) { return }
                continue
            }
            #if canImport(Darwin)
                var yes: Int32 = 1
                setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
            #endif
            let thread = Thread { [self] in
                serve(connection)
                close(connection)
            }
            thread.stackSize = 256 << 10
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        guard let request = readRequest(connection) else { return }
        let (path, range) = request
        let options = lock.withLock {
            active += 1
            peak = max(peak, active)
            served.append(path)
            return self.options
        }
        // A request stops counting as answered just before its last bytes are written: once they
        // are, the client may start its next request before this thread runs again, and a
        // later decrement would count both.
        var counted = true
        func done() {
            if counted { lock.withLock { active -= 1 } }
            counted = false
        }
        defer { done() }

        if options.latency > 0 { usleep(options.latency) }
        let decoded = path.removingPercentEncoding ?? path
        let body: [UInt8]?
        if options.missing.contains(path) || decoded.split(separator: "/").contains("..") {
            body = nil
        } else if let replacement = options.replaced[path] {
            body = replacement
        } else {
            body = FileManager.default.contents(atPath: root + decoded).map { [UInt8]($0) }
        }
        guard let body else {
            done()
            _ = write(
                connection, Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
            return
        }
        var slice = body[...]
        var head = "HTTP/1.1 200 OK\r\n"
        if let range, range.lowerBound < body.count {
            let upper = min(range.upperBound, body.count - 1)
            slice = body[range.lowerBound...upper]
            head = "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes \(range.lowerBound)-\(upper)/\(body.count)\r\n"
        }
        head += "Content-Length: \(slice.count)\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n"
        if slice.isEmpty { done() }
        guard write(connection, Array(head.utf8)) else { return }
        // Throttled: a twentieth of a second's worth at a time.
        let chunk = options.bytesPerSecond.map { max(1, $0 / 20) } ?? 64 << 10
        var offset = slice.startIndex
        while offset < slice.endIndex {
            let end = min(offset + chunk, slice.endIndex)
            if end == slice.endIndex { done() }
            guard write(connection, Array(slice[offset..<end])) else {
                lock.withLock { cutShort.append(path) }
                return
            }
            offset = end
            if options.bytesPerSecond != nil, offset < slice.endIndex { usleep(50_000) }
        }
    }

    /// The request's path and byte range, once its head has arrived.
    private func readRequest(_ connection: Int32) -> (String, ClosedRange<Int>?)? {
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !head.ends(with: Array("\r\n\r\n".utf8)) {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return nil }
            head += buffer[..<count]
            if head.count > 65536 { return nil }
        }
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let words = lines[0].split(separator: " ")
        guard words.count >= 2, words[0] == "GET" else { return nil }
        var range: ClosedRange<Int>?
        for line in lines.dropFirst() where line.lowercased().hasPrefix("range: bytes=") {
            let bounds = line.dropFirst("range: bytes=".count).split(separator: "-", omittingEmptySubsequences: false)
            if bounds.count == 2, let lower = Int(bounds[0]) {
                range = lower...(Int(bounds[1]) ?? Int.max - 1)
            }
        }
        return (String(words[1]), range)
    }

    /// Writes all of `bytes`; false when the client has gone.
    private func write(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, sendFlags) }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
