/// The layout notes of a binary read split over two threads: the calling thread takes over what
/// the worker's scanner learned, and puts the split container's walk together as one thread
/// would have walked it.
///
/// Each scanner notes what it decoded: object encodings and key texts are facts about an object,
/// the same whichever thread noted them, so the worker's are copied wherever the calling thread
/// has none. The walk is an order: one thread notes a dictionary's keys, then each value's
/// subtree, while a split dictionary's parts each note their own keys and then their own values;
/// so the container's steps are put back in file order, every part's keys before any value
/// (extents count steps, so a subtree moved whole stays valid).
///
/// One thing a part cannot know is whether another part reached a container first: one thread
/// notes only the first visit of a container as its subtree, and every later one as a single
/// step. The join therefore gives up (and the read decodes again on one thread) when both
/// scanners reached one container. Strings, numbers and the other scalars are single steps
/// either way. A container the worker reached and the calling thread meets only after the split
/// is left to the calling thread's own rule: the join marks it decoded once, so that meeting it
/// is the later visit it is. Dictionaries whose entries repeat a key inside a part are noted by
/// walk position, which the join would move: the read decodes again on one thread for them too
/// (rare: only files from writers that repeat keys).
extension BinaryObjectScanner {
    /// Takes over the worker's notes and rebuilds the walk of the split container, whose own
    /// step precedes `ownWalk`, the calling thread's part (its `ownKeys` key steps, then its
    /// values'); throws when the one-thread walk cannot be rebuilt, so that the read decodes
    /// again on one thread. `repeatedKeysBefore` is how many dictionaries with repeated keys
    /// were noted before the split.
    mutating func joinSplitLayout(
        _ jobs: BinarySplitJobs, ownWalk: Range<Int>, ownKeys: Int, repeatedKeysBefore: Int
    ) throws(PlistError) {
        guard repeatedKeys.count == repeatedKeysBefore else { throw Self.splitWalkUnjoinable }
        let segments = jobs.ranges.indices.map { jobs.walkSegment(ofJob: $0) }
        if var worker = jobs.takeWorkerScanner() {
            try takeNotes(of: &worker)
            let theirs = worker.recorder.walkPiece(0..<worker.recorder.walkCount)
            rebuildSplitWalk(ownWalk: ownWalk, ownKeys: ownKeys, segments: segments, workerWalk: theirs)
        } else {
            rebuildSplitWalk(ownWalk: ownWalk, ownKeys: ownKeys, segments: segments, workerWalk: nil)
        }
    }

    /// The error that makes a split read decode again on one thread; never reported.
    static var splitWalkUnjoinable: PlistError {
        PlistError(.badObject, format: .binary, "the two threads' walks cannot be joined")
    }

    /// Copies the worker's notes on every object it reached and this scanner did not, with a
    /// state that makes this scanner's next reference a later visit; throws when both reached a
    /// container (other than the open path to the split container, which both hold open). The
    /// worker's key texts are moved over whole, not copied one by one (a retain each).
    private mutating func takeNotes(of worker: inout BinaryObjectScanner) throws(PlistError) {
        guard worker.repeatedKeys.isEmpty else { throw Self.splitWalkUnjoinable }
        let theirStates = worker.objectStates
        let textsMoved = recorder.takeKeyTexts(of: &worker.recorder)
        let theirNotes = worker.recorder.encodingStorage
        for index in 0..<trailer.objectCount {
            let theirs = theirStates[index]
            guard theirs != .unseen else { continue }
            let note = theirNotes[index]
            if objects.state(index) == .unseen {
                recorder.note(index, note)
                objects.setState(index, Self.laterVisitState(after: theirs, note: note))
                reachedCount &+= 1
            } else if theirs != .open && Self.isContainer(note) {
                throw Self.splitWalkUnjoinable
            }
            if !recorder.isKey(index), worker.recorder.isKey(index) { recorder.adoptKey(index, from: worker.recorder, movedTo: textsMoved) }
        }
        int128HighWords.merge(worker.int128HighWords) { mine, _ in mine }
    }

    /// The state under which this scanner treats its next reference to an object another
    /// scanner left in `state` as a later visit: kept values are not shared between scanners,
    /// so a kept container or string is decoded again (and then kept).
    private static func laterVisitState(after state: BinaryObjectSlots.State, note: BinaryLayout.EncodingNote) -> BinaryObjectSlots.State {
        switch state {
        case .cached:
            if isContainer(note) { return .builtOnce }
            return note.type >= 0x4 && note.type <= 0x7 ? .decodedOnce : .scalar
        case .open, .reopened:
            // Only the open path, which this scanner reached first.
            preconditionFailure("an object open in the worker alone")
        case .unseen, .scalar, .decodedOnce, .builtOnce:
            return state
        }
    }

    private static func isContainer(_ note: BinaryLayout.EncodingNote) -> Bool {
        note.type == 0xA || note.type == 0xC || note.type == 0xD
    }

    /// Puts the split container's steps in one thread's order: the calling thread's keys, every
    /// job's keys in job order, then the calling thread's values and every job's values.
    private mutating func rebuildSplitWalk(
        ownWalk: Range<Int>, ownKeys: Int, segments: [BinarySplitHalf.WalkSegment], workerWalk: BinaryLayoutRecorder.WalkPiece?
    ) {
        func piece(_ segment: BinarySplitHalf.WalkSegment, _ range: Range<Int>) -> BinaryLayoutRecorder.WalkPiece {
            guard segment.fromWorker else { return recorder.walkPiece(range) }
            // Never nil: a job the worker decoded means the worker's scanner was handed over.
            var theirs = workerWalk!
            theirs.range = range
            return theirs
        }
        let keysEnd = ownWalk.lowerBound + ownKeys
        var keys = [recorder.walkPiece(ownWalk.lowerBound..<keysEnd)]
        var values = [recorder.walkPiece(keysEnd..<ownWalk.upperBound)]
        for segment in segments {
            let split = segment.walk.lowerBound + segment.keyCount
            keys.append(piece(segment, segment.walk.lowerBound..<split))
            values.append(piece(segment, split..<segment.walk.upperBound))
        }
        recorder.replaceWalk(from: ownWalk.lowerBound, with: keys + values)
    }
}
