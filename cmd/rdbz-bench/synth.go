package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/rdbz/rdbz/rdbio"
)

// The synthetic dump of the stdin row: a 1 GiB string, then a list of
// 512 MiB in quicklist nodes of about 8 KiB (listpacks of JSON-like
// events, which a dictionary compresses), written on the fly with a
// correct CRC64 trailer.
const (
	synthString    = 1 << 30
	synthListBytes = 512 << 20
	synthEntries   = 128 // listpack entries per node
	synthEntryLen  = 60  // bytes of each entry's string (a 6-bit-length listpack string)
)

func synthNodes() int {
	return synthListBytes / (synthEntries * (synthEntryLen + 2))
}

// synthSize is the size of the synthetic dump in bytes, near enough for
// MB/s.
func synthSize() int64 {
	return synthString + int64(synthNodes())*int64(synthEntries*(synthEntryLen+2)+10)
}

// writeSynth writes the synthetic dump to w.
func writeSynth(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	rw, err := rdbio.NewWriter(bw, rdbio.Header{Magic: "REDIS0011", Version: 11})
	if err != nil {
		return err
	}
	write := func(b []byte) error { _, err := rw.Write(b); return err }
	head := []byte{rdbio.OpSelectDB, 0, rdbio.TypeString}
	head = append(rdbio.AppendLen(head, 3), "big"...)
	if err := write(rdbio.AppendLen(head, synthString)); err != nil {
		return err
	}
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = 'a' + byte(i%23)
	}
	for n := 0; n < synthString; n += len(chunk) {
		if err := write(chunk); err != nil {
			return err
		}
	}
	nodes := synthNodes()
	head = append(rdbio.AppendLen([]byte{rdbio.TypeListQuicklist2}, 4), "list"...)
	if err := write(rdbio.AppendLen(head, uint64(nodes))); err != nil {
		return err
	}
	// 256 different nodes, cycled, so that generating keeps up with rdbz.
	var packed [256][]byte
	for i := range packed {
		lp := synthListpack(nil, i)
		packed[i] = append(rdbio.AppendLen(rdbio.AppendLen(nil, 2), uint64(len(lp))), lp...) // container 2: a packed node
	}
	for i := range nodes {
		if err := write(packed[i%len(packed)]); err != nil {
			return err
		}
	}
	if err := rw.Close(); err != nil {
		return err
	}
	return bw.Flush()
}

// synthListpack appends node i's listpack to dst: synthEntries strings of
// synthEntryLen bytes, each stored as a 6-bit-length string (0x80|len),
// then its back-length (one byte: the entry is under 128 bytes).
func synthListpack(dst []byte, i int) []byte {
	dst = append(dst, 0, 0, 0, 0)
	dst = binary.LittleEndian.AppendUint16(dst, synthEntries)
	for j := range synthEntries {
		e := fmt.Sprintf(`{"user":%d,"event":"%s","ts":%d,"pad":"`, (i*31+j*7)%100000,
			[]string{"click", "view", "login", "purchase"}[(i+j)%4], 1700000000+i*synthEntries+j)
		for len(e) < synthEntryLen-2 {
			e += "x"
		}
		e = (e + `"}`)[:synthEntryLen]
		dst = append(dst, 0x80|synthEntryLen)
		dst = append(dst, e...)
		dst = append(dst, 1+synthEntryLen)
	}
	dst = append(dst, 0xFF)
	binary.LittleEndian.PutUint32(dst, uint32(len(dst)))
	return dst
}
