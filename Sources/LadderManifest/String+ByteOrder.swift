import Foundation

extension String {
    /// True when this string's UTF-8 bytes sort before `other`'s. Manifests, their index files
    /// and folder listings are in this order, in which names that differ only by Unicode
    /// normalization stay distinct (Swift's `<` holds them equal); one `memcmp`, not a walk of
    /// two `UTF8View`s a byte at a time.
    package func utf8Precedes(_ other: String) -> Bool {
        let bytewise = utf8.withContiguousStorageIfAvailable { left in
            other.utf8.withContiguousStorageIfAvailable { right -> Bool in
                let common = min(left.count, right.count)
                if common > 0, let a = left.baseAddress, let b = right.baseAddress {
                    let order = memcmp(a, b, common)
                    if order != 0 { return order < 0 }
                }
                return left.count < right.count
            }
        }
        if let bytewise, let result = bytewise { return result }
        return utf8.lexicographicallyPrecedes(other.utf8)
    }
}
