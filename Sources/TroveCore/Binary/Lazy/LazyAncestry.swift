/// The containers on the path from the root to a node, innermost first: what a lookup needs to
/// refuse a reference cycle and to count nesting depth.
///
/// Children share their parent's chain, so walking into a container costs one small allocation
/// however deep it is.
final class LazyAncestry: Sendable {
    /// The object index of the innermost container.
    let object: Int
    /// The chain above it.
    let parent: LazyAncestry?
    /// How many containers the chain holds.
    let depth: Int

    init(object: Int, parent: LazyAncestry?) {
        self.object = object
        self.parent = parent
        depth = (parent?.depth ?? 0) + 1
    }

    /// True when `object` is one of the chain's containers. At most `maxDepth` links are walked.
    func contains(_ object: Int) -> Bool {
        var link: LazyAncestry? = self
        while let current = link {
            if current.object == object { return true }
            link = current.parent
        }
        return false
    }

    /// The object indices of the chain, outermost first.
    var objects: [Int] {
        var result: [Int] = []
        result.reserveCapacity(depth)
        var link: LazyAncestry? = self
        while let current = link {
            result.append(current.object)
            link = current.parent
        }
        return result.reversed()
    }
}
