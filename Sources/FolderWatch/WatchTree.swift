/// The watched directories as a tree keyed by inotify watch descriptor.
///
/// Each node stores only its parent and its own name, so a path is computed by walking up and a directory
/// rename is one re-link, whatever the size of the subtree below it: every descendant's path changes with it.
/// Not thread-safe: owned by one ``WatchEngine``.
struct WatchTree {
    struct Node {
        /// The parent's descriptor; nil for the root.
        var parent: Int32?
        /// The directory's name in its parent ("" for the root).
        var name: String
        /// The watched subdirectories by name.
        var children: [String: Int32] = [:]
    }

    private(set) var nodes: [Int32: Node] = [:]
    private(set) var rootDescriptor: Int32 = -1

    var count: Int { nodes.count }

    mutating func setRoot(_ descriptor: Int32) {
        rootDescriptor = descriptor
        nodes[descriptor] = Node(parent: nil, name: "")
    }

    func contains(_ descriptor: Int32) -> Bool { nodes[descriptor] != nil }

    func child(of parent: Int32, named name: String) -> Int32? { nodes[parent]?.children[name] }

    /// The path of a watched directory relative to the root ("" for the root), or nil for an unknown one.
    ///
    /// - Complexity: O(depth).
    func path(of descriptor: Int32) -> String? {
        guard var node = nodes[descriptor] else { return nil }
        var components: [String] = []
        while let parent = node.parent {
            components.append(node.name)
            guard let next = nodes[parent] else { return nil }
            node = next
        }
        return components.reversed().joined(separator: "/")
    }

    /// Whether `ancestor` is `descriptor` itself or one of its ancestors.
    ///
    /// - Complexity: O(depth).
    func isAncestor(_ ancestor: Int32, of descriptor: Int32) -> Bool {
        var current: Int32? = descriptor
        while let value = current {
            if value == ancestor { return true }
            current = nodes[value]?.parent
        }
        return false
    }

    /// Adds a watched directory below `parent`. A node already at that name is replaced (its subtree dropped,
    /// its descriptors returned so the caller can remove their watches).
    mutating func insert(_ descriptor: Int32, parent: Int32, name: String) -> [Int32] {
        var dropped: [Int32] = []
        if let previous = nodes[parent]?.children[name], previous != descriptor {
            dropped = removeSubtree(previous)
        }
        nodes[descriptor] = Node(parent: parent, name: name)
        nodes[parent]?.children[name] = descriptor
        return dropped
    }

    /// Moves a node (and so its whole subtree) under `parent` as `name`. Moving a node below itself, or onto one
    /// of its ancestors, changes nothing.
    ///
    /// - Returns: the descriptors of a subtree that was at the destination and was dropped.
    /// - Complexity: O(1), plus the size of a replaced subtree.
    mutating func move(_ descriptor: Int32, to parent: Int32, name: String) -> [Int32] {
        guard let node = nodes[descriptor], !isAncestor(descriptor, of: parent) else { return [] }
        // Onto one of its own ancestors: rename(2) refuses that (the ancestor is not empty), so it cannot happen.
        if let previous = nodes[parent]?.children[name], previous != descriptor, isAncestor(previous, of: descriptor) {
            return []
        }
        if let oldParent = node.parent, nodes[oldParent]?.children[node.name] == descriptor {
            nodes[oldParent]?.children[node.name] = nil
        }
        var dropped: [Int32] = []
        if let previous = nodes[parent]?.children[name], previous != descriptor {
            dropped = removeSubtree(previous)
        }
        nodes[descriptor]?.parent = parent
        nodes[descriptor]?.name = name
        nodes[parent]?.children[name] = descriptor
        return dropped
    }

    /// Removes a node and everything below it.
    ///
    /// - Returns: the removed descriptors, the node's own first.
    /// - Complexity: O(size of the subtree).
    @discardableResult
    mutating func removeSubtree(_ descriptor: Int32) -> [Int32] {
        guard let node = nodes[descriptor] else { return [] }
        if let parent = node.parent, nodes[parent]?.children[node.name] == descriptor {
            nodes[parent]?.children[node.name] = nil
        }
        var removed: [Int32] = []
        var stack = [descriptor]
        while let current = stack.popLast() {
            guard let removedNode = nodes.removeValue(forKey: current) else { continue }
            removed.append(current)
            stack.append(contentsOf: removedNode.children.values)
        }
        return removed
    }

    #if DEBUG
    /// Checks the tree's invariants: every child link points back to its parent and every node reaches the root.
    func checkInvariants() {
        for (descriptor, node) in nodes {
            if let parent = node.parent {
                precondition(nodes[parent]?.children[node.name] == descriptor, "WatchTree: dangling parent link")
            } else {
                precondition(descriptor == rootDescriptor, "WatchTree: second root")
            }
            for (name, child) in node.children {
                precondition(nodes[child]?.parent == descriptor && nodes[child]?.name == name, "WatchTree: bad child link")
            }
            precondition(path(of: descriptor) != nil, "WatchTree: node not reachable from the root")
        }
    }
    #endif
}
