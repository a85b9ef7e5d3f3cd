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
/// Range requests (with `If-Range` against the strong ETag it sends with every file), and can be
/// told to throttle each connection, answer 404 for some paths, serve other bytes for a path,
/// hold a path's response until the test releases it, or answer ranges with the whole file. It
/// logs what the tests check: each request with its range and answer, the most served at once,
/// and bodies cut short by the client. One thread per connection; `Connection: close`.
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
        /// Paths whose response waits (after the request is logged) until they leave this set.
        var held: Set<String> = []
        /// True to answer every request with the whole file and 200, Range or not, as some
        /// servers do.
        var ignoresRange = false
        /// For each path, the most body bytes sent before the connection is closed (the rest of
        /// the body is lost, as when a connection breaks).
        var cutAfter: [String: Int] = [:]
    }

    /// One request and how it was answered.
    struct Exchange: Sendable, Equatable {
        var path: String
        /// The first byte asked for with `Range`, if any.
        var rangeStart: Int?
        var ifRange: String?
        var status: Int
        /// The body bytes written.
        var sent: Int
    }

    let root: String
    private(set) var port: UInt16 = 0
    private let listener: Int32
    private let lock = NSLock()
    private var options = Options()
    private var active = 0
    private var peak = 0
    private var served: [String] = []
    private var exchanges: [Exchange] = []
    private var cutShort: [String] = []
    private var stopped = false
    /// Wakes held responses when the options change or the server stops.
    private let gate = NSCondition()

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

    func configure(_ change: (inout Options) -> Void) {
        lock.withLock { change(&options) }
        gate.lock()
        gate.broadcast()
        gate.unlock()
    }

    /// The paths requested so far, in order.
    var requests: [String] { lock.withLock { served } }
    /// Every request answered (or being answered), in the order they arrived.
    var log: [Exchange] { lock.withLock { exchanges } }
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
        gate.lock()
        gate.broadcast()
        gate.unlock()
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
        let path = request.path
        let (options, number) = lock.withLock {
            active += 1
            peak = max(peak, active)
            served.append(path)
            exchanges.append(
                Exchange(
                    path: path, rangeStart: request.range?.lowerBound, ifRange: request.ifRange, status: 0, sent: 0))
            return (self.options, exchanges.count - 1)
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
        func record(status: Int? = nil, sent: Int = 0) {
            lock.withLock {
                if let status { exchanges[number].status = status }
                exchanges[number].sent += sent
            }
        }

        gate.lock()
        while lock.withLock({ self.options.held.contains(path) && !stopped }) { gate.wait() }
        gate.unlock()
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
            record(status: 404)
            _ = write(
                connection, Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
            return
        }
        let tag = Self.entityTag(of: body)
        var slice = body[...]
        var head = "HTTP/1.1 200 OK\r\n"
        var status = 200
        // A range is honoured when the file is still the one the client's validator names.
        let current = request.ifRange.map { $0 == tag || $0 == Self.lastModified } ?? true
        if let range = request.range, range.lowerBound < body.count, current, !options.ignoresRange {
            let upper = min(range.upperBound, body.count - 1)
            slice = body[range.lowerBound...upper]
            head = "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes \(range.lowerBound)-\(upper)/\(body.count)\r\n"
            status = 206
        }
        record(status: status)
        head += "Content-Length: \(slice.count)\r\nContent-Type: application/octet-stream\r\n"
        head += "ETag: \(tag)\r\nLast-Modified: \(Self.lastModified)\r\nConnection: close\r\n\r\n"
        if slice.isEmpty { done() }
        guard write(connection, Array(head.utf8)) else { return }
        if let cut = options.cutAfter[path], cut < slice.count { slice = slice.prefix(cut) }
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
            record(sent: end - offset)
            offset = end
            if options.bytesPerSecond != nil, offset < slice.endIndex { usleep(50_000) }
        }
    }

    /// A strong ETag for a body: its length and FNV-1a hash.
    static func entityTag(of body: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "\"\(body.count)-\(String(hash, radix: 16))\""
    }

    /// The Last-Modified date of every file.
    static let lastModified = "Tue, 01 Dec 2026 10:00:00 GMT"

    /// The request's path, byte range and If-Range validator, once its head has arrived.
    private func readRequest(_ connection: Int32) -> (path: String, range: ClosedRange<Int>?, ifRange: String?)? {
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
        var ifRange: String?
        for line in lines.dropFirst() {
            if line.lowercased().hasPrefix("range: bytes=") {
                let bounds = line.dropFirst("range: bytes=".count).split(
                    separator: "-", omittingEmptySubsequences: false)
                if bounds.count == 2, let lower = Int(bounds[0]) {
                    range = lower...(Int(bounds[1]) ?? Int.max - 1)
                }
            } else if line.lowercased().hasPrefix("if-range:") {
                ifRange = line.dropFirst("if-range:".count).trimmingCharacters(in: .whitespaces)
            }
        }
        return (String(words[1]), range, ifRange)
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
