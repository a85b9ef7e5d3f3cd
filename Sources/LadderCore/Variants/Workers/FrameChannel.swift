import Foundation

/// Length-prefixed frames over a pair of file descriptors: a 4-byte tag, a JSON header and a
/// binary payload, each with its length. Used between a build and its render workers.
struct FrameChannel {
    let input: Int32
    let output: Int32

    /// Why a frame could not be moved.
    enum Failure: Error {
        /// The other side closed its end (or died).
        case closed
        /// No frame arrived before the deadline.
        case timedOut
        /// The bytes do not form a frame.
        case malformed(String)
        case system(Int32)
    }

    static let requestTag: [UInt8] = Array("LQ01".utf8)
    static let responseTag: [UInt8] = Array("LS01".utf8)
    /// Sent once by a worker when its image libraries are started and it can take a request.
    static let readyTag: [UInt8] = Array("LR01".utf8)

    /// The ready frame's header.
    struct Ready: Codable {}

    /// The largest header accepted, against a confused peer.
    static let maximumHeader = 16 << 20

    func send(tag: [UInt8], header: some Encodable, payload: [UInt8]) throws(Failure) {
        guard let headerData = try? JSONEncoder().encode(header) else { throw .malformed("cannot encode the header") }
        var frame = tag
        frame += Self.bytes(UInt64(headerData.count))
        frame += headerData
        frame += Self.bytes(UInt64(payload.count))
        try writeAll(frame)
        try writeAll(payload)
    }

    /// Reads one frame. With `deadline`, waits at most until then for the whole frame.
    func receive<Header: Decodable>(
        tag: [UInt8], as type: Header.Type, deadline: ContinuousClock.Instant? = nil
    ) throws(Failure) -> (Header, [UInt8]) {
        let receivedTag = try read(4, deadline: deadline)
        guard receivedTag == tag else { throw .malformed("unexpected frame tag") }
        let headerLength = try length(deadline: deadline)
        guard headerLength <= Self.maximumHeader else { throw .malformed("header of \(headerLength) bytes") }
        let headerBytes = try read(headerLength, deadline: deadline)
        guard let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)) else {
            throw .malformed("undecodable header")
        }
        let payloadLength = try length(deadline: deadline)
        return (header, try read(payloadLength, deadline: deadline))
    }

    private func length(deadline: ContinuousClock.Instant?) throws(Failure) -> Int {
        let bytes = try read(8, deadline: deadline)
        let value = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard value <= UInt64(1 << 40) else { throw .malformed("length \(value)") }
        return Int(value)
    }

    private static func bytes(_ value: UInt64) -> [UInt8] {
        (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) }
    }

    private func writeAll(_ bytes: [UInt8]) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Platform.write(output, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE { throw .closed }
                throw .system(errno)
            }
            offset += count
        }
    }

    private func read(_ count: Int, deadline: ContinuousClock.Instant?) throws(Failure) -> [UInt8] {
        // Read straight into the array's storage: no zero-filling of what is about to be read.
        var failure: Failure?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(Failure) {
                try fill(buffer, count: count, deadline: deadline, filled: &initialized)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return bytes
    }

    private func fill(
        _ buffer: UnsafeMutableBufferPointer<UInt8>, count: Int, deadline: ContinuousClock.Instant?,
        filled offset: inout Int
    ) throws(Failure) {
        while offset < count {
            if let deadline {
                let remaining = ContinuousClock.now.duration(to: deadline)
                let milliseconds =
                    remaining.components.seconds * 1000
                    + remaining.components.attoseconds / 1_000_000_000_000_000
                guard milliseconds > 0 else { throw .timedOut }
                var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, Int32(min(milliseconds, Int64(Int32.max))))
                if ready < 0 {
                    if errno == EINTR { continue }
                    throw .system(errno)
                }
                if ready == 0 { throw .timedOut }
            }
            let received = Platform.read(input, buffer.baseAddress! + offset, count - offset)
            if received < 0 {
                if errno == EINTR { continue }
                throw .system(errno)
            }
            if received == 0 { throw .closed }
            offset += received
        }
    }

}
