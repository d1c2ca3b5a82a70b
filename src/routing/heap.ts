// A binary min-heap of (node, priority) pairs in two parallel arrays: Dijkstra over a few
// thousand nodes needs nothing more, and a dependency for it would be larger than this file.
// Stale entries are left in place ("lazy deletion"); the search skips nodes already settled.

export class MinHeap {
  private nodes: number[] = [];
  private keys: number[] = [];

  get size(): number {
    return this.nodes.length;
  }

  push(node: number, key: number): void {
    const nodes = this.nodes;
    const keys = this.keys;
    let i = nodes.length;
    nodes.push(node);
    keys.push(key);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (keys[parent]! <= key) break;
      nodes[i] = nodes[parent]!;
      keys[i] = keys[parent]!;
      i = parent;
    }
    nodes[i] = node;
    keys[i] = key;
  }

  /** Removes and returns the node with the smallest key, or -1 when empty. */
  pop(): number {
    const nodes = this.nodes;
    const keys = this.keys;
    if (nodes.length === 0) return -1;
    const top = nodes[0]!;
    const lastNode = nodes.pop()!;
    const lastKey = keys.pop()!;
    const n = nodes.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && keys[r]! < keys[l]! ? r : l;
        if (keys[c]! >= lastKey) break;
        nodes[i] = nodes[c]!;
        keys[i] = keys[c]!;
        i = c;
      }
      nodes[i] = lastNode;
      keys[i] = lastKey;
    }
    return top;
  }
}
