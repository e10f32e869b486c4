import Foundation

/// Bytes that stay at one address, unchanged, for as long as the object that owns them lives.
///
/// ``LazyBinaryPlist`` reads its input in place, long after it was opened, so it cannot borrow a
/// buffer for the length of one call the way ``Plist/read(bytes:options:)`` does; it keeps a
/// source alive instead. ``PlistByteBuffer`` owns a private copy; `TroveFileIO`'s `FileContents`
/// holds a whole file, read into memory or (on request) mapped read-only.
///
/// Conforming types promise that `bytes` is the same buffer on every call and that nothing
/// writes to it while the object is alive.
public protocol PlistByteSource: AnyObject, Sendable {
    /// The bytes, valid until the source is released.
    var bytes: UnsafeRawBufferPointer { get }
}

/// A private, immutable copy of some bytes: the ``PlistByteSource`` for input that is already in
/// memory (a `Data`, an array, a pipe's contents).
public final class PlistByteBuffer: PlistByteSource, @unchecked Sendable {
    // Unchecked: the memory is allocated here, written once in init and never again, and freed
    // only in deinit, so sharing the read-only pointer across threads is safe.
    public let bytes: UnsafeRawBufferPointer

    /// Copies `data`.
    public convenience init(_ data: Data) {
        self.init(byteCount: data.count) { destination in
            _ = data.copyBytes(to: destination)
        }
    }

    /// Copies `bytes`.
    public convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init(byteCount: bytes.count) { destination in
            destination.copyMemory(from: bytes)
        }
    }

    /// Copies a collection of bytes, such as an array.
    public convenience init<C: Collection>(copying bytes: C) where C.Element == UInt8 {
        self.init(byteCount: bytes.count) { destination in
            _ = destination.initializeMemory(as: UInt8.self, from: bytes)
        }
    }

    private init(byteCount: Int, fill: (UnsafeMutableRawBufferPointer) -> Void) {
        // At least one byte, so that an empty buffer still has an address to free.
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(byteCount, 1), alignment: 16)
        let used = UnsafeMutableRawBufferPointer(rebasing: storage[0..<byteCount])
        fill(used)
        bytes = UnsafeRawBufferPointer(used)
        allocation = storage
    }

    private let allocation: UnsafeMutableRawBufferPointer

    deinit { allocation.deallocate() }
}
