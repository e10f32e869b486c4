extension BinaryLayout {
    /// The text of each object used as a dictionary key, by object index.
    ///
    /// A flat index (four bytes per object) rather than a dictionary: the writer asks it for
    /// every key of every dictionary it follows notes for, and hashing the object number for a
    /// dictionary lookup each time was a few percent of a lossless write.
    ///
    /// Most texts are kept one by one (`texts`). The keys of a large dictionary are kept as the
    /// dictionary's own key array, a *segment*: one reference for all of them, where keeping
    /// each text cost a retain at the read and a release when the notes go (a fifth of the extra
    /// work of a lossless read of a 200,000-key dictionary).
    ///
    /// Invariant: `index.count` is the object count; `index[k]` is 0 when object `k` was never a
    /// key; else its top four bits are 0 and it is one more than the position of the text in
    /// `texts`, or they are `s` (1 to ``maxSegments``) and its low 28 bits are the position of the
    /// text in `segments[s - 1]`.
    struct KeyTexts: Sendable, Hashable {
        private var index: [UInt32]
        private var texts: [String] = []
        private var segments: [[String]] = []

        /// How many segments an index can name.
        static let maxSegments = 15
        /// The fewest keys kept as a segment: fewer are kept one by one.
        static let smallestSegment = 256
        /// Where an index entry's segment number starts; the bits below hold a position.
        static let segmentShift: UInt32 = 28
        static let positionMask: UInt32 = 1 << segmentShift - 1

        init(objectCount: Int) { index = Array(repeating: 0, count: objectCount) }

        /// Where a non-zero index entry puts its text: segment 0 for the loose texts, else the
        /// segment's number; and the position there.
        @inline(__always)
        static func location(of entry: UInt32) -> (segment: Int, position: Int) {
            let segment = Int(entry >> segmentShift)
            return (segment, segment == 0 ? Int(entry &- 1) : Int(entry & positionMask))
        }

        /// Texts with their index as the type's invariant describes it.
        init(index: [UInt32], texts: [String], segments: [[String]]) {
            self.index = index
            self.texts = texts
            self.segments = segments
            _checkInvariants()
        }

        /// The text of `object` as a key, or nil when it was never one.
        @inline(__always)
        subscript(object: UInt32) -> String? {
            let entry = index[Int(object)]
            guard entry != 0 else { return nil }
            let (segment, position) = Self.location(of: entry)
            return segment == 0 ? texts[position] : segments[segment - 1][position]
        }

        /// Pointers to the index and the texts, for a reader that keeps this value (and so
        /// every array) alive and unchanged while it reads through them.
        var storage: Storage {
            Storage(
                index: BinaryObjectPlanner.storage(of: Optional(index)), texts: BinaryObjectPlanner.storage(of: Optional(texts)),
                segments: segments.map { BinaryObjectPlanner.storage(of: Optional($0)) })
        }

        /// ``KeyTexts`` read through pointers, valid while the value they came from lives.
        struct Storage {
            let index: UnsafePointer<UInt32>
            let texts: UnsafePointer<String>
            /// The first text of each segment.
            let segments: [UnsafePointer<String>]

            /// Where the text of `object` lies, or nil when it was never a key. The writer asks for
            /// every key it matches: the loose case is decoded on its own branch, which
            /// ``location(of:)`` would make two instructions longer.
            @inline(__always)
            func text(of object: Int) -> UnsafePointer<String>? {
                let entry = index[object]
                guard entry != 0 else { return nil }
                let segment = Int(entry >> KeyTexts.segmentShift)
                if segment == 0 { return texts + Int(entry &- 1) }
                return segments[segment &- 1] + Int(entry & KeyTexts.positionMask)
            }
        }

        /// Whether the non-zero index entry `entry` names a text among `textCount` loose texts and
        /// segments of `segmentCounts` texts: the invariant's check of one entry, which the
        /// recorder makes too.
        static func names(_ entry: UInt32, textCount: Int, segmentCounts: [Int]) -> Bool {
            let (segment, position) = location(of: entry)
            if segment == 0 { return position < textCount }
            return segment <= segmentCounts.count && position < segmentCounts[segment - 1]
        }

        /// Checks the invariant above (debug builds only).
        func _checkInvariants() {
            #if DEBUG
            precondition(segments.count <= Self.maxSegments, "\(segments.count) key segments")
            for (object, entry) in index.enumerated() where entry != 0 {
                precondition(
                    Self.names(entry, textCount: texts.count, segmentCounts: segments.map(\.count)),
                    "object \(object)'s key text is past the texts or its segment")
            }
            #endif
        }
    }
}
