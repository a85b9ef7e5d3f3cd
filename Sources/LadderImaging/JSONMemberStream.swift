internal import CYajl
package import LadderManifest

/// A JSON document whose top-level object is read a chunk at a time with yajl's event parser,
/// and handed over member by member as the bytes of each value, so that a document of any size
/// costs one chunk and one member. The members of the objects named in `streaming` (a
/// manifest's `images`) are handed over one at a time instead of whole.
///
/// yajl checks the syntax (and that strings are UTF-8); what the values mean is the reader's
/// to decode, one member at a time.
package final class JSONMemberStream {
    /// One member: its key, the key of the streamed object it belongs to (nil at the top
    /// level), and its value's JSON bytes; or, for a streamed member read as an image entry
    /// (`readsImageEntries`), the entry, and no bytes.
    package struct Member: Sendable {
        package var parent: String?
        package var key: String
        package var value: [UInt8]
        package var entry: Manifest.ImageEntry?
    }

    /// Why the document could not be read: yajl's message, the reader's error, or a member over
    /// `memberLimit` (`isOverLimit`).
    package struct ReadError: Error, Sendable, CustomStringConvertible {
        package var reason: String
        package var isOverLimit = false
        package var description: String { reason }

        package init(reason: String, isOverLimit: Bool = false) {
            self.reason = reason
            self.isOverLimit = isOverLimit
        }
    }

    private let streaming: Set<String>
    /// The most bytes one member's value may take: what the stream holds at once, besides a chunk.
    private let memberLimit: Int
    private let readChunk: () throws -> [UInt8]?
    private var handle: yajl_handle?
    /// yajl keeps the pointer it is given: the callbacks live as long as the stream.
    private let callbacks = UnsafeMutablePointer<yajl_callbacks>.allocate(capacity: 1)

    /// The bytes from absolute offset `windowStart` on: the member being read, and the chunk.
    private var window: [UInt8] = []
    private var windowStart = 0
    /// The absolute offset of the chunk yajl is reading.
    private var chunkStart = 0
    private var finished = false
    private var failure: String?
    /// A member over `memberLimit`, met whole within a chunk.
    private var overLimit: String?

    /// Open containers: 1 inside the top-level object.
    private var depth = 0
    /// The streamed object being read, when `depth` is 2 or more inside it.
    private var streamed: String?
    /// The key of the member being read, and the offset just past it (its value follows).
    private var key = ""
    private var valueStart: Int?
    private var ready: [Member] = []

    /// When false, the members of streamed objects are counted (`streamedCount`), not handed over.
    private let handsOverStreamed: Bool
    /// Without `handsOverStreamed`, what takes the streamed objects' insides out of the bytes
    /// before yajl reads them, and counts their members.
    private var skipper: JSONObjectSkipper?
    /// How many members of streamed objects yajl read.
    private var readCount = 0
    /// How many members of streamed objects were read, or counted as they were skipped.
    package var streamedCount: Int { readCount + (skipper?.skippedMembers ?? 0) }
    /// With `readsImageEntries`, the reader of the streamed member being read, which is handed
    /// its events as they come; nil otherwise. It is reached through a pointer, not held as a
    /// class: its state changes at every event, and a class's stored properties are checked for
    /// exclusive access each time.
    private let entryReader: UnsafeMutablePointer<ImageEntryReader>?
    /// True once the entry reader refused an event of the member being read: its bytes are
    /// handed over instead, for `JSONDecoder` to decide.
    private var entryRefused = false
    /// The keys of the streamed objects met so far (a skipped one too: yajl reads it empty).
    package private(set) var streamedObjects: Set<String> = []

    /// `readChunk` returns the document's next bytes, nil at its end. With `handsOverStreamed`
    /// false, the streamed objects' members are only counted, and their bytes are not read by
    /// yajl (`JSONObjectSkipper`): a pass over the rest of the document.
    /// A member whose value takes more than `memberLimit` bytes stops the stream: the document
    /// itself may be of any size. With `readsImageEntries`, each streamed member is read as a
    /// manifest's image entry (`ImageEntryParser`) from the events of this pass, instead of
    /// being parsed again from its bytes: one pass of yajl over the images instead of two.
    package init(
        streaming: Set<String>, handsOverStreamed: Bool = true, readsImageEntries: Bool = false,
        memberLimit: Int = .max, readChunk: @escaping () throws -> [UInt8]?
    ) {
        self.streaming = streaming
        self.memberLimit = memberLimit
        self.handsOverStreamed = handsOverStreamed
        self.readChunk = readChunk
        skipper = handsOverStreamed ? nil : JSONObjectSkipper(names: streaming)
        if readsImageEntries && handsOverStreamed {
            entryReader = .allocate(capacity: 1)
            entryReader?.initialize(to: ImageEntryReader())
        } else {
            entryReader = nil
        }
        callbacks.initialize(to: yajl_callbacks())
        callbacks.pointee.yajl_null = { context in JSONMemberStream.of(context).scalar(.null) }
        callbacks.pointee.yajl_boolean = { context, flag in JSONMemberStream.of(context).scalar(.boolean(flag != 0)) }
        // Numbers as their text: never refused for their size, decoded by the reader.
        callbacks.pointee.yajl_number = { context, text, count in
            let digits = UnsafeRawPointer(text).map { $0.assumingMemoryBound(to: UInt8.self) }
            return JSONMemberStream.of(context).scalar(.number(UnsafeBufferPointer(start: digits, count: count)))
        }
        callbacks.pointee.yajl_string = { context, text, count in
            JSONMemberStream.of(context).scalar(.string(UnsafeBufferPointer(start: text, count: count)))
        }
        callbacks.pointee.yajl_start_map = { context in JSONMemberStream.of(context).open(isObject: true) }
        callbacks.pointee.yajl_start_array = { context in JSONMemberStream.of(context).open(isObject: false) }
        callbacks.pointee.yajl_end_map = { context in JSONMemberStream.of(context).close() }
        callbacks.pointee.yajl_end_array = { context in JSONMemberStream.of(context).close() }
        callbacks.pointee.yajl_map_key = { context, bytes, count in
            JSONMemberStream.of(context).key(UnsafeBufferPointer(start: bytes, count: count))
        }
    }

    deinit {
        if let handle { yajl_free(handle) }
        callbacks.deallocate()
        entryReader?.deinitialize(count: 1)
        entryReader?.deallocate()
    }

    /// The next members, at least `count` of them unless the document ends first; empty once
    /// it has ended.
    package func next(atLeast count: Int) throws(ReadError) -> [Member] {
        if handle == nil {
            handle = yajl_alloc(callbacks, nil, Unmanaged.passUnretained(self).toOpaque())
        }
        while ready.count < count && !finished {
            var chunk: [UInt8]?
            do {
                chunk = try readChunk()
            } catch {
                throw ReadError(reason: "\(error)")
            }
            if let read = chunk, !read.isEmpty, skipper != nil {
                chunk = skipper!.filter(read)
                if chunk!.isEmpty { continue }
            }
            let status: yajl_status
            if let chunk, !chunk.isEmpty {
                chunkStart = windowStart + window.count
                window += chunk
                status = window.withUnsafeBufferPointer {
                    yajl_parse(handle, $0.baseAddress! + (chunkStart - windowStart), chunk.count)
                }
            } else {
                finished = true
                status = yajl_complete_parse(handle)
            }
            if let failure { throw ReadError(reason: failure) }
            if let overLimit { throw ReadError(reason: overLimit, isOverLimit: true) }
            guard status == yajl_status_ok else { throw ReadError(reason: yajlError()) }
            // Keep only the member being read.
            let keep = (valueStart ?? (windowStart + window.count)) - windowStart
            if keep > 0 {
                window.removeSubrange(0..<keep)
                windowStart += keep
            }
            if let valueStart, windowStart + window.count - valueStart > memberLimit {
                throw ReadError(reason: overLimitReason, isOverLimit: true)
            }
        }
        defer { ready.removeAll(keepingCapacity: true) }
        return ready
    }

    private func yajlError() -> String {
        guard let text = yajl_get_error(handle, 0, nil, 0) else { return "not valid JSON" }
        defer { yajl_free_error(handle, text) }
        // "parse error: ..." and a newline: its first line.
        return String(cString: text).split(separator: "\n").first.map(String.init) ?? "not valid JSON"
    }

    private static func of(_ context: UnsafeMutableRawPointer?) -> JSONMemberStream {
        Unmanaged<JSONMemberStream>.fromOpaque(context!).takeUnretainedValue()
    }

    /// The absolute offset just past the token yajl has read.
    private var offset: Int { chunkStart + Int(yajl_get_bytes_consumed(handle)) }

    /// True when a value that ends at `depth` is a member to hand over.
    private var isMemberDepth: Bool { depth == 1 || (depth == 2 && streamed != nil) }

    /// A key: kept as a String only when it names a member to hand over (the keys inside
    /// members, most of a manifest's, are the reader's to decode).
    private func key(_ name: UnsafeBufferPointer<UInt8>) -> Int32 {
        if isMemberDepth {
            key = String(decoding: name, as: UTF8.self)
            valueStart = offset
            if depth == 2, let entryReader {
                entryReader.pointee = ImageEntryReader()
                entryRefused = false
            }
        } else if let entryReader, isInStreamedValue {
            forward(entryReader.pointee.key(name))
        }
        return 1
    }

    private func scalar(_ value: ImageEntryReader.Scalar) -> Int32 {
        if depth == 0 { return fail("the document is not an object") }
        if let entryReader, isInStreamedValue { forward(entryReader.pointee.scalar(value)) }
        if isMemberDepth { emit() }
        return 1
    }

    /// True while the value of a streamed member is being read (the event is its own, or within
    /// it), and the entry reader has not refused it.
    private var isInStreamedValue: Bool {
        streamed != nil && depth >= 2 && valueStart != nil && !entryRefused
    }

    /// Notes the entry reader's answer to an event.
    private func forward(_ answer: Int32) {
        if answer == 0 { entryRefused = true }
    }

    private func open(isObject: Bool) -> Int32 {
        if depth == 0 && !isObject { return fail("the document is not an object") }
        if let entryReader, isInStreamedValue { forward(entryReader.pointee.open(isObject: isObject)) }
        depth += 1
        if depth == 2, isObject, streaming.contains(key) {
            streamed = key
            streamedObjects.insert(key)
            valueStart = nil
        }
        return 1
    }

    private func close() -> Int32 {
        if let entryReader, depth >= 3, isInStreamedValue { forward(entryReader.pointee.close()) }
        depth -= 1
        if depth == 1, streamed != nil, valueStart == nil {
            // The streamed object itself ends: its members are handed over already.
            streamed = nil
        } else if isMemberDepth && depth > 0 {
            emit()
        }
        return 1
    }

    private var overLimitReason: String { "the value of \"\(key)\" takes more than \(memberLimit) bytes" }

    private func fail(_ reason: String) -> Int32 {
        failure = reason
        return 0
    }

    /// Hands over the member whose value ends here: the bytes after its key, without the colon
    /// and the blanks before the value.
    private func emit() {
        guard let start = valueStart else { return }
        defer { valueStart = nil }
        if depth == 2 {
            readCount += 1
            if !handsOverStreamed { return }
        }
        var from = start - windowStart
        let end = offset - windowStart
        guard end - from <= memberLimit else {
            overLimit = overLimit ?? overLimitReason
            return
        }
        while from < end, [0x20, 0x09, 0x0A, 0x0D, 0x3A].contains(window[from]) { from += 1 }
        if depth == 2, let entryReader, !entryRefused, let entry = entryReader.pointee.entry {
            // A `\u` escape may make what yajl replaces and JSONDecoder refuses: the bytes decide.
            let escaped = window.withUnsafeBufferPointer {
                ImageEntryParser.hasUnicodeEscape(UnsafeBufferPointer(rebasing: $0[from..<end]))
            }
            if !escaped {
                ready.append(Member(parent: streamed, key: key, value: [], entry: entry))
                return
            }
        }
        ready.append(Member(parent: depth == 2 ? streamed : nil, key: key, value: Array(window[from..<end])))
    }
}
