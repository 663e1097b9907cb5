package analyze

import "github.com/rdbz/rdbz/rdbio"

// streamMem costs a stream (robj apart) two ways: mu is objectComputeSize's
// count (the stream struct, its radix tree and listpacks, and per consumer
// group the group, its PEL tree and NACKs, and per consumer its struct,
// name and PEL tree, each tree by streamRadixTreeMemoryUsage's formula);
// alloc is what those take from the allocator (trees by their nodes).
type streamMem struct {
	mu, alloc int64
	nodes     raxCount
	pel       raxCount // of the current group
	consumer  raxCount // of the current consumer
	inGroup   bool
	inCons    bool
	groups    bool
}

func (s *streamMem) reset() {
	*s = streamMem{mu: sizeStream, alloc: allocSize(sizeStream), nodes: newRaxCount()}
}

func (s *streamMem) add(e *rdbio.Elem) {
	switch e.Kind {
	case rdbio.ElemNode:
		s.nodes.insert(e.ID)
		s.both(allocSize(int64(e.Len)), allocSize(int64(e.Len)))
	case rdbio.ElemGroup:
		s.endGroup()
		s.inGroup, s.groups, s.pel = true, true, newRaxCount()
		n := int64(e.Count)
		s.both(sizeStreamCG+n*sizeStreamNACK, allocSize(sizeStreamCG)+n*allocSize(sizeStreamNACK))
	case rdbio.ElemGroupID:
		s.pel.insert(e.ID)
	case rdbio.ElemConsumer:
		s.endConsumer()
		s.inCons, s.consumer = true, newRaxCount()
		n := int64(e.Len)
		s.both(sizeConsumer+n, allocSize(sizeConsumer)+sdsAlloc(n))
	case rdbio.ElemConsumerID:
		s.consumer.insert(e.ID)
	}
}

func (s *streamMem) both(mu, alloc int64) {
	s.mu += mu
	s.alloc += alloc
}

func (s *streamMem) tree(t *raxCount) {
	s.both(t.streamTreeMemory(), t.allocated())
}

func (s *streamMem) endConsumer() {
	if s.inCons {
		s.tree(&s.consumer)
		s.inCons = false
	}
}

func (s *streamMem) endGroup() {
	s.endConsumer()
	if s.inGroup {
		s.tree(&s.pel)
		s.inGroup = false
	}
}

// finish adds the trees still open and the stream's own tree; the tree of
// group names, which objectComputeSize leaves out, is counted in alloc as
// one small node a group.
func (s *streamMem) finish() {
	s.endGroup()
	s.tree(&s.nodes)
	if s.groups {
		s.alloc += allocSize(24) + allocSize(8)
	}
}
