package rdbio

// TypeOf is the Type that a key record's type byte b means in a file with
// this header, as a Reader resolves it (values.go): dragonfly says the file
// is Dragonfly's (an AUX df-ver or a Dragonfly opcode before its first
// key). It reports false for a byte that is no value type of that
// producer. For callers that walk T or RDB bytes without a Reader
// (listcodec/columns).
func (h Header) TypeOf(b byte, dragonfly bool) (Type, bool) {
	return producer{hdr: h, dfly: dragonfly}.typeOf(b)
}
