// Package columns is the column-stream codec of format 2's segments
// (issue 27): a segment — the T bytes (FORMAT.md §3) of consecutive
// records — is split into streams by role (keys, string values by key
// prefix, hash field names, hash values by field name, set members, list
// elements, sorted set members and scores, stream entries, integers as
// varints, and a skeleton of everything else), each stream compressed on
// its own with zstd; decoding decompresses the streams and joins them back
// into T, byte for byte.
//
// Splitter (split.go) walks records by the RDB grammar and classifies
// their bytes; listpacks, ziplists and intsets are taken apart into their
// entries when Join rebuilds them byte for byte (blobs.go), and kept whole
// otherwise. Join (join.go) is an interpreter of the tape, the stream of
// ops the Splitter wrote: it needs no grammar beyond rebuilding those
// blobs, and a segment it is given can only make it return T or an error.
// Encoder and Decoder (segment.go) compress and decompress a split
// segment.
//
// # Use
//
//	s := columns.NewSplitter()            // one per file, on the reading goroutine
//	s.Start(seg)                          // a *Segment, recycled (3 for 2 workers)
//	s.Record(rec, isKey)                  // each whole record of T, in order, while s.Len()+len(rec) ≤ the segment size
//	s.Raw(piece)                          // or pieces of a record too long for a segment
//	seg = s.Finish()                      // to a worker:
//
//	enc, _ := columns.NewEncoder(columns.Options{Level: zstd.SpeedDefault}) // one per worker
//	out, err := enc.Encode(out[:0], seg)  // then seg may be recycled
//
//	dec, _ := columns.NewDecoder(0)       // one per worker
//	t, err := dec.Decode(t, out)          // T, checked against the segment's CRC-32C
//
// The record's type byte is read with the file's header, which the
// Splitter takes from T's first record (the magic); a Splitter that starts
// elsewhere reads type bytes as Redis's. A record whose value Join would
// not rebuild is never an error: it goes to the skeleton.
//
// # The compressed segment
//
// Integers are little-endian; uvarint is encoding/binary's unsigned
// varint; CRC-32C is hash/crc32's Castagnoli.
//
//	field            size     meaning                                   a reader checks
//	version          1        2 (1: templates without fields)           1 or 2
//	T length         uvarint  the T bytes the segment stands for, L     1 ≤ L ≤ its limit (MaxSegment, 64 MiB)
//	T checksum       4        CRC-32C of those T bytes                  equal to that of the T it rebuilds
//	m                uvarint  number of streams                         m ≤ 2048
//	m descriptors             in increasing id order:
//	  id             uvarint  id − the previous id − 1 (the first: id)  id < 2048
//	  method         1        0 stored, 1 zstd, 3 zstd of uvarint       0, 1 or 3 (2, zstd with a dictionary,
//	                          planes                                    is refused: none is defined yet)
//	  raw length     uvarint  the stream's bytes, R                     1 ≤ R ≤ 2·L + 4112
//	  stored length  uvarint  (methods 1, 2 only) its bytes here, S     S ≥ 1
//	header checksum  4        CRC-32C of the bytes above                equal
//	streams                   the m streams' stored bytes, in order     they end where src ends
//
// The raw lengths add up to at most 2·L + 4112. A stored stream is its R
// bytes; a zstd stream (method 1) is one zstd frame (RFC 8878) with its
// Frame_Content_Size equal to R, without a dictionary ID, that decodes to
// exactly R bytes (the frame checksum is not written: the T checksum
// covers the segment). Method 3 is for streams of uvarints: one zstd frame
// as for method 1 of their planes, P bytes with R < P ≤ R + (bytes of the
// uvarint R): N, the number of uvarints, as a uvarint; then plane 0, the
// first byte of each of the N uvarints; plane 1, the second byte of each
// uvarint of two bytes or more; and so on, plane j + 1 holding as many
// bytes as plane j has bytes with bit 7 set, at most 10 planes, all of them
// exactly filling the P bytes. The stream is the uvarints rebuilt in order,
// each taking its next byte from plane 0, then while the byte has bit 7
// set from the next plane.
//
// # Streams and the tape
//
// Stream id = 8·role + part. Role 0 holds the tape (id 0) and the
// skeleton (id 1); every other role r (1 ≤ r < 256) has up to eight
// parts: nums (8r: uvarints of integers), order (8r+1, below), data (8r+2:
// string bytes), lens (8r+3: uvarint lengths of those strings), and, in
// place of data and lens, tokens (8r+4 to 8r+7, below). Which role is
// which is the writer's choice, recorded nowhere: the tape names the
// roles, and a reader needs nothing else. (This writer: roles 1–14 fixed
// — keys, string values, hash fields, hash values, set members, list
// elements, zset members, zset scores, stream IDs, stream entries,
// intsets, field TTLs, bulk, other —, 16–255 given out to hash fields and
// key prefixes as their values pass 4 KiB.) Every byte of data[r]
// belongs to one string lens[r] delimits.
//
// Tokens. A role's strings may be stored as four streams instead of data
// and lens (then neither of those may be present, and tlens must be):
//
//	tmpl  (8r+4)  each string with every number and hex run replaced by a
//	              marker: 0x01 a number, 0x02 and k (4 ≤ k ≤ 127) a hex run
//	              of k bytes; in version 2 also 0x04 and f (a byte) the next
//	              string of field f, and 0x05 and k (16 ≤ k < 64) a number
//	              of slot k; a byte 0x01–0x05 of the string itself
//	              (version 1: 0x01–0x03) is written 0x03 and the byte
//	tnums (8r+5)  for each number v (0 ≤ v < 10^18), in order, the uvarint
//	              zigzag(v − p), p the value the same slot (0x01: the i-th
//	              0x01 of a string, i ≥ 15 counted as 15; 0x05: k) held
//	              last in the role's strings, 0 at first
//	thex  (8r+6)  the bytes of the hex runs, in order
//	tlens (8r+7)  the uvarint total length D of the strings, then each
//	              template's length, a uvarint
//
// A reader rebuilds each string from its template: other bytes as they
// are, each number in decimal, each hex run in lowercase hex (two digits a
// byte, high nibble first), each field marker as the next string of role
// f (next length bytes of data[f]). A field is a role of data and lens
// only (no nums, order or tokens), not the template's own role; the
// templates must take all its strings, and the tape none (a reader
// empties it before the tape runs). This writer cuts the string values of
// JSON documents out of templates, one field per path (fields.go). The strings must add up to exactly D bytes
// (the D of all roles together at most 2·L + 4096), every token stream be
// read to its end, and then data[r] is the strings one after another and
// lens[r] their lengths as uvarints.
//
// A role with an order stream is sorted: its strings are stored in
// another order than the tape takes them (this writer: string values
// sorted by key, for roles of at least 16 strings of 2 KiB on average in
// the segment). Before the tape runs, a reader cuts data[r] into the
// strings lens[r] gives, in order (their lengths must add up to data[r]'s
// length exactly); then the k-th string the tape takes of role r is the
// one whose index (from 0) is the k-th uvarint of order[r], each index
// below the number of strings and each string taken exactly once.
//
// The tape is a sequence of ops, each an op byte and uvarint operands; T is
// what they write, in order. "Next length" is the next uvarint of lens[r],
// "next number" the next uvarint of nums[r], unzigzag(u) = (u >> 1) xor
// −(u & 1); an RDB length is written in its shortest form (FORMAT.md §5:
// 1 byte under 64, 2 under 16384, 0x80 and 4 bytes big-endian up to
// 2^32 − 1, else 0x81 and 8):
//
//	op  operands  writes
//	1   n         the next n bytes of the skeleton
//	2   r         a string: the RDB length n, then the next n bytes of data[r] (n: next length)
//	3   r         a decoded LZF string: 0xC5, 0x00, then as op 2
//	4   r         an integer string: v = unzigzag(next number) in the smallest of 0xC0 + 1 byte,
//	              0xC1 + 2, 0xC2 + 4 (little-endian two's complement); v must fit 32 bits
//	5   r         the next (next length) bytes of data[r]
//	6   r         8 bytes of a double, little-endian: u = next number; u even: the double
//	              of the integer unzigzag(u >> 1); u = 1: the next string of role r
//	              (next length bytes of data[r]), which must be 8 bytes
//	7   k         a listpack of k entries, stored as op 2 stores a string; the k entry ops follow
//	8   k         the same, stored as op 3 stores one
//	9   k         a ziplist of k entries (as op 7)
//	10  k         the same, stored as op 3 stores one
//	11  r k       an intset of k ≥ 1 members, stored as op 2 stores a string: the first
//	              unzigzag(next number), each next the previous + next number + 1 (they
//	              must not pass 2^63 − 1)
//	12  r k       the same, stored as op 3 stores one
//	13  r         (entry) a string entry of (next length) bytes of data[r]
//	14  r         (entry) an integer entry: unzigzag(next number)
//
// Ops 13 and 14 stand only right after ops 7–10, k of them. The blobs are
// written as Redis writes them:
//
//   - listpack: u32 total bytes, u16 count (k, or 65535 when k ≥ 65535),
//     the entries, 0xFF. An integer entry in the first encoding that holds
//     it: 0xxxxxxx for 0..127, 110xxxxx + 1 byte for −4096..4095, then 0xF1,
//     0xF2, 0xF3 + 2, 3, 4 bytes, 0xF4 + 8 bytes; a string entry of n bytes:
//     10xxxxxx for n < 64, 1110xxxx + 1 byte for n < 4096, else 0xF0 + u32;
//     each entry followed by its back-length, the size l of encoding and
//     data in 7-bit groups, most significant first, every byte but the
//     first with bit 7 set, in 1 byte for l ≤ 127, 2 below 16383, 3 below
//     2097151, 4 below 268435455, else 5 (listpack.c).
//   - ziplist: u32 total bytes, u32 offset of the last entry (10 when
//     empty), u16 count (as a listpack's), the entries, 0xFF. An entry is
//     the previous entry's size (1 byte under 254, else 0xFE + u32; 0 for
//     the first), then for an integer the first of: 0xF1 + v for 0..12,
//     0xFE + 1 byte, 0xC0 + 2, 0xF0 + 3, 0xD0 + 4, 0xE0 + 8; for a string of
//     n bytes: 00xxxxxx for n ≤ 63, 01xxxxxx + 1 byte (big-endian 14 bits)
//     for n ≤ 16383, else 0x80 + u32 big-endian (ziplist.c).
//   - intset: u32 width w, u32 count, the members in w bytes each, w the
//     smallest of 2, 4, 8 that holds the first and the last member
//     (intset.c).
//
// For a sorted role, ops 2, 3, 5, 6 (with u = 1) and 13 read no length:
// the string they take is the one the role's order stream names, with the
// length lens[r] gave it.
//
// A reader must refuse: an op byte outside 1–14 (or 13–14 outside a blob,
// or another inside one), a role 0 or ≥ 256, a uvarint or a string that
// runs past the end of its stream or of the tape, a count k larger than
// half the tape left (a blob) or than the nums bytes left (an intset), an
// integer string out of 32 bits, a double's number odd but 1 (or its
// string not of 8 bytes), intset
// members that overflow, an order index out of range or taken twice, any
// write past L, and, once the tape is done, T shorter than L, a string of
// a sorted role not taken, or any byte left unread in any stream. Then the
// CRC-32C of T must be the T checksum.
package columns
