package train

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// This file extracts list node strings (listpacks, ziplists, plain nodes)
// from the RDB files of the generated corpus, for measurements on realistic
// samples. It is a deliberately small reader for list-only files, independent
// of the project's RDB package; files with other value types are rejected.

const corpusDir = "/work/shared/corpus/generated"

type rdbScan struct {
	r   *bufio.Reader
	buf []byte
}

func (s *rdbScan) byte() (byte, error) { return s.r.ReadByte() }

func (s *rdbScan) full(n int) ([]byte, error) {
	if cap(s.buf) < n {
		s.buf = make([]byte, n)
	}
	b := s.buf[:n]
	_, err := io.ReadFull(s.r, b)
	return b, err
}

// length reads an RDB length; special reports the 11xxxxxx string encodings.
func (s *rdbScan) length() (n uint64, special bool, err error) {
	b, err := s.byte()
	if err != nil {
		return 0, false, err
	}
	switch b >> 6 {
	case 0:
		return uint64(b & 0x3f), false, nil
	case 1:
		c, err := s.byte()
		return uint64(b&0x3f)<<8 | uint64(c), false, err
	case 2:
		switch b {
		case 0x80:
			p, err := s.full(4)
			if err != nil {
				return 0, false, err
			}
			return uint64(binary.BigEndian.Uint32(p)), false, nil
		case 0x81:
			p, err := s.full(8)
			if err != nil {
				return 0, false, err
			}
			return binary.BigEndian.Uint64(p), false, nil
		}
		return 0, false, fmt.Errorf("bad length byte %#x", b)
	}
	return uint64(b & 0x3f), true, nil
}

// str reads an RDB string and returns a fresh copy of its decoded bytes.
func (s *rdbScan) str() ([]byte, error) {
	n, special, err := s.length()
	if err != nil {
		return nil, err
	}
	if !special {
		p, err := s.full(int(n))
		return append([]byte(nil), p...), err
	}
	switch n {
	case 0, 1, 2:
		p, err := s.full(1 << n)
		return []byte(fmt.Sprint(p)), err
	case 3:
		clen, _, err := s.length()
		if err != nil {
			return nil, err
		}
		ulen, _, err := s.length()
		if err != nil {
			return nil, err
		}
		p, err := s.full(int(clen))
		if err != nil {
			return nil, err
		}
		return lzfDecompress(p, int(ulen))
	}
	return nil, fmt.Errorf("unknown string encoding %d", n)
}

func lzfDecompress(in []byte, ulen int) ([]byte, error) {
	out := make([]byte, 0, ulen)
	for i := 0; i < len(in); {
		ctrl := int(in[i])
		i++
		if ctrl < 32 {
			n := ctrl + 1
			if i+n > len(in) {
				return nil, errors.New("lzf: literal overrun")
			}
			out = append(out, in[i:i+n]...)
			i += n
			continue
		}
		n := ctrl >> 5
		if n == 7 {
			n += int(in[i])
			i++
		}
		ref := len(out) - ((ctrl&0x1f)<<8 | int(in[i])) - 1
		i++
		if ref < 0 {
			return nil, errors.New("lzf: back reference before start")
		}
		for j := 0; j < n+2; j++ {
			out = append(out, out[ref+j])
		}
	}
	if len(out) != ulen {
		return nil, fmt.Errorf("lzf: got %d bytes, want %d", len(out), ulen)
	}
	return out, nil
}

// listNodes calls fn with every list node string of an RDB file holding only
// lists (and strings, which are skipped).
func listNodes(path string, fn func([]byte)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	s := &rdbScan{r: bufio.NewReaderSize(f, 1<<20)}
	if _, err := s.full(9); err != nil {
		return err
	}
	for {
		t, err := s.byte()
		if err != nil {
			return err
		}
		switch t {
		case 0xFF:
			return nil
		case 0xFA: // aux
			if _, err := s.str(); err != nil {
				return err
			}
			if _, err := s.str(); err != nil {
				return err
			}
			continue
		case 0xFE, 0xF8: // select db, idle
			if _, _, err := s.length(); err != nil {
				return err
			}
			continue
		case 0xFB: // resize db
			for range 2 {
				if _, _, err := s.length(); err != nil {
					return err
				}
			}
			continue
		case 0xFC:
			if _, err := s.full(8); err != nil {
				return err
			}
			continue
		case 0xFD:
			if _, err := s.full(4); err != nil {
				return err
			}
			continue
		case 0xF9:
			if _, err := s.byte(); err != nil {
				return err
			}
			continue
		}
		if _, err := s.str(); err != nil { // key
			return err
		}
		switch t {
		case 0: // string
			if _, err := s.str(); err != nil {
				return err
			}
		case 10: // ziplist list
			b, err := s.str()
			if err != nil {
				return err
			}
			fn(b)
		case 14, 18: // quicklist, quicklist2
			n, _, err := s.length()
			if err != nil {
				return err
			}
			for range n {
				if t == 18 {
					if _, _, err := s.length(); err != nil { // container
						return err
					}
				}
				b, err := s.str()
				if err != nil {
					return err
				}
				fn(b)
			}
		default:
			return fmt.Errorf("%s: value type %d not supported by this test reader", path, t)
		}
	}
}

// corpusSamples returns a reservoir sample of the list nodes of one corpus
// file, or an error if the file is missing or unreadable.
func corpusSamples(name string, budget int64) ([][]byte, error) {
	sm := NewSampler(budget, 42)
	if err := listNodes(filepath.Join(corpusDir, name), sm.Add); err != nil {
		return nil, err
	}
	return sm.Samples(), nil
}
