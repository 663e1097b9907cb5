package v1

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/listcodec/format"
	"github.com/rdbz/rdbz/listcodec/node"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/lzf"
)

// Form is what Decompress stores node strings as: listcodec.Form's values
// (`rdbz decompress --to`), which listcodec passes on.
type Form uint8

// The forms of decompressed nodes (FORMAT.md §A.3).
const (
	// ToOriginal stores each node as the source of Compress did: LZF when
	// flag bit 0 is set, else raw. The file comes back byte-identical.
	ToOriginal Form = iota
	// ToLZF stores every node as Redis saves it with rdbcompression yes.
	ToLZF
	// ToRaw stores every node raw (rdbcompression no).
	ToRaw
)

// DecompressOptions configure Decompress. A zero field means its default
// (To: ToOriginal).
type DecompressOptions struct {
	Flow
	To    Form
	Dicts []*node.Dict // external dictionaries (for files written with NoEmbed)
}

// Decompress is DecompressContext without cancellation.
func Decompress(dst io.Writer, src io.Reader, opt DecompressOptions) (*Stats, error) {
	return DecompressContext(context.Background(), dst, src, opt)
}

// DecompressContext turns a format-1 RDB stream back into one that a stock
// redis-server loads: zstd nodes become raw or LZF strings, and rdbz's AUX
// fields are dropped. On an ordinary RDB it converts LZF and raw nodes
// into each other (ToLZF, ToRaw) or copies it unchanged (ToOriginal).
// Cancelling ctx stops it with ctx's error.
func DecompressContext(ctx context.Context, dst io.Writer, src io.Reader, opt DecompressOptions) (*Stats, error) {
	start := time.Now()
	st := &Stats{}
	t, err := newTranscoder(ctx, dst, src, opt.Flow, st)
	if err != nil {
		return st, err
	}
	d := &decompressor{opt: opt, t: t, dicts: append([]*node.Dict(nil), opt.Dicts...)}
	t.h = d
	err = t.run()
	st.Format = d.format
	if n := len(d.dicts) - len(opt.Dicts); n > 0 { // embedded ones
		st.DictID, st.DictBytes = d.dicts[len(opt.Dicts)].ID, len(d.dicts[len(opt.Dicts)].Bytes)
	}
	st.Elapsed = time.Since(start)
	return st, err
}

// decompressor is Decompress's handler of the transcoder.
type decompressor struct {
	opt        DecompressOptions
	t          *transcoder
	dicts      []*node.Dict
	started    int    // dictionaries the running workers know
	format     string // the rdbz format version; "" for an ordinary RDB
	sourceZero bool   // AUX rdbz-source-crc: the source's trailer was 0
}

// aux drops rdbz's AUX fields, loading embedded dictionaries and checking
// every dictionary against the checksum the file records.
func (d *decompressor) aux(rec *rdbio.Record) error {
	var err error
	switch string(rec.Name) {
	case format.AuxFormat:
		d.format = string(rec.Value)
		if d.format != format.Version && d.format != format.Version10 {
			err = fmt.Errorf("rdbz format %q at offset %d: this rdbz reads formats %s and %s: %w",
				rec.Value, rec.Offset, format.Version10, format.Version, ErrFormatVersion)
		}
	case format.AuxDict:
		var dict *node.Dict
		if dict, err = node.ParseDict(append([]byte(nil), rec.Value...)); err != nil {
			err = fmt.Errorf("AUX %s at offset %d: %w", format.AuxDict, rec.Offset, err)
		} else {
			dict.Source = fmt.Sprintf("embedded at offset %d", rec.Offset)
			d.dicts = append(d.dicts, dict)
		}
	case format.AuxDictID:
		err = d.checkDictID(rec)
	case format.AuxDictSum:
		err = d.checkDictSum(rec)
	case format.AuxSourceCRC:
		d.sourceZero = string(rec.Value) == "0"
	default:
		return nil
	}
	if err != nil {
		return err
	}
	return d.t.drop()
}

// checkDictSum compares the dictionary a file names with the checksum it
// recorded for it: a wrong or altered dictionary is an error naming it.
func (d *decompressor) checkDictSum(rec *rdbio.Record) error {
	idText, want, ok := strings.Cut(string(rec.Value), ":")
	id, err := strconv.ParseUint(idText, 10, 32)
	if !ok || err != nil {
		return fmt.Errorf("AUX %s at offset %d: %q is not ID:checksum", format.AuxDictSum, rec.Offset, rec.Value)
	}
	for _, dict := range d.dicts {
		if dict.ID != uint32(id) {
			continue
		}
		if got := dict.Sum(); got != want {
			return fmt.Errorf("dictionary %d (%s) is not the one the file was compressed with: checksum %s, the file records %s: %w",
				id, dict.Source, got, want, ErrWrongDict)
		}
		return nil
	}
	return fmt.Errorf("the file was compressed with dictionary %d, which is not given: %w", id, node.ErrUnknownDict)
}

// end chooses the trailer: a CRC64, or 0 where the source had 0. A
// format 1.1 file that could be walked to its end always carries a CRC64;
// one whose trailer is 0 was altered, and its frames cannot be trusted.
func (d *decompressor) end(eof *rdbio.Record) (rdbio.Trailer, error) {
	if d.format == format.Version && eof.Checksum == rdbio.ChecksumDisabled && !d.t.unwalked {
		return rdbio.Trailer{}, fmt.Errorf("rdbz format %s file with a CRC64 trailer of 0 (rdbz always writes one): the file was altered: %w",
			d.format, rdbio.ErrChecksum)
	}
	if d.sourceZero || eof.Checksum == rdbio.ChecksumDisabled {
		return rdbio.TrailerZero, nil
	}
	return rdbio.TrailerCRC, nil
}

// checkDictID fails early when the file names a dictionary we lack.
func (d *decompressor) checkDictID(rec *rdbio.Record) error {
	id, err := strconv.ParseUint(string(rec.Value), 10, 32)
	if err != nil {
		return fmt.Errorf("AUX %s at offset %d: %q is not a dictionary ID", format.AuxDictID, rec.Offset, rec.Value)
	}
	for _, dict := range d.dicts {
		if dict.ID == uint32(id) {
			return nil
		}
	}
	return fmt.Errorf("the file was compressed with external dictionary %d: pass it with --dict: %w", id, node.ErrUnknownDict)
}

// node leaves node items as they are: the workers decide.
func (d *decompressor) node(*item) error { return nil }

// emit queues every item.
func (d *decompressor) emit(it *item, toWorkers bool) error { return d.t.queue(it, toWorkers) }

// list (re)starts the workers at a list record when dictionaries arrived
// since they started.
func (d *decompressor) list(*rdbio.Record) error {
	t := d.t
	if t.workers && d.started == len(d.dicts) {
		return nil
	}
	if t.workers {
		if err := t.p.drainWorkers(); err != nil {
			return err
		}
	}
	d.started = len(d.dicts)
	t.workers = true
	return t.p.startWorkers(t.flow.Workers, d.newWorker)
}

type unpacker struct {
	to    Form
	codec *node.Codec
	lzf   lzf.Encoder
	raw   []byte
}

func (d *decompressor) newWorker() (nodeFunc, error) {
	codec, err := node.NewCodec(d.dicts, nil, zstd.SpeedDefault)
	if err != nil {
		return nil, err
	}
	u := &unpacker{to: d.opt.To, codec: codec}
	return u.node, nil
}

func (u *unpacker) node(it *item) error {
	defer func() { u.raw = trim(u.raw) }()
	raw, err := u.decoded(it)
	if err != nil || raw == nil {
		return err
	}
	lzf := u.to == ToLZF || (u.to == ToOriginal && it.node.flags&rdbio.ZstdFlagLZF != 0)
	if lzf {
		var ok bool
		if u.to == ToOriginal {
			// The source's LZF bytes, reproduced (Compress checked that
			// they are): a budget that never binds.
			it.out, ok = u.lzf.Encode(it.out[:0], raw, len(raw)+len(raw)/16+64)
			if !ok {
				return nodeError(it, "LZF node", fmt.Errorf("cannot re-encode LZF"))
			}
		} else {
			it.out, ok = u.lzf.RedisSave(it.out[:0], raw)
		}
		if ok {
			it.outEnc, it.changed = rdbio.EncLZF, true
			return nil
		}
	}
	it.out, it.outEnc, it.changed = append(it.out[:0], raw...), rdbio.EncRaw, true
	return nil
}

// decoded returns the node's bytes when the node must change, else nil.
func (u *unpacker) decoded(it *item) ([]byte, error) {
	var err error
	switch {
	case it.node.enc == rdbio.EncZstd:
		u.raw, err = u.codec.Decompress(u.raw[:0], it.buf, int(it.node.ulen))
		if err != nil {
			return nil, nodeError(it, "zstd node", err)
		}
		return u.raw, nil
	case it.node.enc == rdbio.EncLZF && u.to == ToRaw:
		u.raw, err = lzf.Decode(u.raw[:0], it.buf, int(it.node.ulen))
		if err != nil {
			return nil, nodeError(it, "LZF node", err)
		}
		return u.raw, nil
	case it.node.enc == rdbio.EncRaw && u.to == ToLZF:
		return it.buf, nil
	}
	return nil, nil
}
