package rdbio

import (
	"fmt"
	"strconv"
)

// Opcodes (docs/rdb-format.md §3).
const (
	OpSlotImport  = 243 // Valkey 9 (VALKEY magic)
	OpKeyMeta     = 243 // Redis 8.6+ (REDIS magic)
	OpSlotInfo    = 244
	OpFunction2   = 245
	OpFunctionPre = 246
	OpModuleAux   = 247
	OpIdle        = 248
	OpFreq        = 249
	OpAux         = 250
	OpResizeDB    = 251
	OpExpireMs    = 252
	OpExpireSec   = 253
	OpSelectDB    = 254
	OpEOF         = 255
)

var opNames = map[byte]string{
	242: "UPDATE", 243: "KEY_META/SLOT_IMPORT", 244: "SLOT_INFO", 245: "FUNCTION2",
	246: "FUNCTION_PRE_GA", 247: "MODULE_AUX", 248: "IDLE", 249: "FREQ", 250: "AUX",
	251: "RESIZEDB", 252: "EXPIRETIME_MS", 253: "EXPIRETIME", 254: "SELECTDB", 255: "EOF",
	200: "DF_FULLSYNC_END", 201: "DF_COMPRESSED_ZSTD", 202: "DF_COMPRESSED_LZ4",
	210: "DF_JOURNAL_BLOB", 211: "DF_JOURNAL_OFFSET", 220: "DF_MASK", 222: "DF_VECTOR_INDEX",
	223: "DF_SHARD_DOC_INDEX", 224: "DF_TAGGED_CHUNK", 107: "RAM_LRU", 121: "SLOT_NUM",
}

// OpName names an opcode for messages: "opcode AUX", "opcode 42".
func OpName(op byte) string {
	if s, ok := opNames[op]; ok {
		return "opcode " + s
	}
	return "opcode " + strconv.Itoa(int(op))
}

// readOpcode reads the payload of a non-key record and returns its kind.
func (r *Reader) readOpcode(op byte) (Kind, error) {
	rec := &r.rec
	switch op {
	case OpAux:
		name, err := r.readString(rec.Name[:0])
		if err != nil {
			return KindAux, err
		}
		rec.Name = name
		val, err := r.readString(rec.Value[:0])
		rec.Value = val
		if err == nil {
			r.auxSeen(name, val)
		}
		return KindAux, err
	case OpSelectDB:
		db, err := r.readLen()
		r.next.db, rec.DB = db, db
		return KindSelectDB, err
	case OpResizeDB:
		var err error
		if rec.DBSize, err = r.readLen(); err != nil {
			return KindResizeDB, err
		}
		rec.ExpiresSize, err = r.readLen()
		return KindResizeDB, err
	case OpExpireMs:
		p, err := r.in.take(8)
		if err != nil {
			return KindExpire, err
		}
		r.next.expire = int64(le64(p))
		rec.Expire = r.next.expire
		return KindExpire, nil
	case OpExpireSec:
		p, err := r.in.take(4)
		if err != nil {
			return KindExpire, err
		}
		r.next.expire = int64(int32(le32(p))) * 1000
		rec.Expire = r.next.expire
		return KindExpire, nil
	case OpIdle:
		idle, err := r.readLen()
		r.next.idle, rec.Idle = idle, idle
		return KindIdle, err
	case OpFreq:
		b, err := r.in.byte()
		r.next.freq, rec.Freq = int(b), int(b)
		return KindFreq, err
	case OpModuleAux:
		return KindModuleAux, r.skipModuleAux()
	case OpFunction2:
		code, err := r.readString(rec.Value[:0])
		rec.Value = code
		return KindFunction, err
	case OpFunctionPre:
		return KindFunction, r.readFunctionPreGA()
	case OpSlotInfo:
		return KindSlotInfo, r.readSlotInfo()
	case 243:
		if r.hdr.Valkey {
			return KindSlotImport, r.skipSlotImport()
		}
		return KindKeyMeta, r.skipKeyMeta()
	}
	return r.readVendor(op)
}

// auxSeen notes the AUX field the Reader itself heeds: df-ver (Dragonfly's
// mark).
func (r *Reader) auxSeen(name, _ []byte) {
	if string(name) == "df-ver" {
		r.marks.dfly = true
	}
}

// readVendor reads Dragonfly and Redis Enterprise opcodes (§3, §6).
func (r *Reader) readVendor(op byte) (Kind, error) {
	var err error
	switch op {
	case 107, 121: // Redis Enterprise RAM_LRU, SLOT_NUM
		_, err = r.readLen()
	case 200, 211: // Dragonfly FULLSYNC_END, JOURNAL_OFFSET
		err = r.in.skip(8)
	case 201, 202: // Dragonfly compressed blob (replication)
		err = r.skipString()
	case 210: // JOURNAL_BLOB
		if _, err = r.readLen(); err == nil {
			err = r.skipString()
		}
	case 220: // DF_MASK: per-key flags
		err = r.skipDFMask()
	case 222:
		err = r.skipVectorIndex()
	case 223:
		err = r.skipShardDocIndex()
	case 224: // TAGGED_CHUNK: u32 stream id, u32 payload bytes, payload
		var p []byte
		if p, err = r.in.take(8); err == nil {
			err = r.in.skip(uint64(le32(p[4:])))
		}
	default:
		return KindVendor, fmt.Errorf("%w: unknown opcode %d", ErrUnsupported, op)
	}
	if op >= 200 && op <= 224 {
		r.marks.dfly = true
	}
	return KindVendor, err
}

// readFunctionPreGA reads Redis 7.0-rc's FUNCTION record: name, engine,
// a has-description flag, the description when set, and the code. Its
// Value is the library as redis 7.0 loads it: "#!ENGINE name=NAME", a
// newline, then the code (the description is dropped).
func (r *Reader) readFunctionPreGA() error {
	rec := &r.rec
	name, err := r.readString(rec.Name[:0])
	if err != nil {
		return err
	}
	rec.Name = name
	engine, err := r.readString(r.bufs.scratch[:0])
	if err != nil {
		return err
	}
	head := append(append(append(append([]byte("#!"), engine...), " name="...), name...), '\n')
	hasDesc, err := r.readLen()
	if err != nil {
		return err
	}
	if hasDesc > 1 {
		return fmt.Errorf("%w: function description flag %d", ErrCorrupt, hasDesc)
	}
	if hasDesc == 1 {
		if err := r.skipString(); err != nil {
			return err
		}
	}
	code, err := r.readString(rec.Value[:0])
	if err != nil {
		return err
	}
	rec.Value = append(head, code...)
	return nil
}

// readSlotInfo reads SLOT_INFO: slot, keys, keys with expiry.
func (r *Reader) readSlotInfo() error {
	rec := &r.rec
	for _, p := range []*uint64{&rec.Slot, &rec.DBSize, &rec.ExpiresSize} {
		n, err := r.readLen()
		if err != nil {
			return err
		}
		*p = n
	}
	return nil
}

func (r *Reader) skipLens(n int) error {
	return skipN(n, func() error { _, err := r.readLen(); return err })
}

func (r *Reader) skipSlotImport() error {
	if err := r.skipString(); err != nil {
		return err
	}
	return r.each(func() error { return r.skipLens(2) })
}

// skipKeyMeta walks Redis 8.6 KEY_META: n × (4-byte class spec, module body).
func (r *Reader) skipKeyMeta() error {
	return r.each(func() error {
		if err := r.in.skip(4); err != nil {
			return err
		}
		return r.skipModuleBody()
	})
}

// skipModuleAux walks MODULE_AUX: module id, when-opcode, when, body.
func (r *Reader) skipModuleAux() error {
	if err := r.skipLens(1); err != nil {
		return err
	}
	whenOp, err := r.readLen()
	if err != nil {
		return err
	}
	if whenOp != moduleOpUint {
		return fmt.Errorf("%w: module aux when-opcode %d, want 2", ErrCorrupt, whenOp)
	}
	if err := r.skipLens(1); err != nil {
		return err
	}
	return r.skipModuleBody()
}

// Module value opcodes (§4.2).
const (
	moduleOpEOF    = 0
	moduleOpSint   = 1
	moduleOpUint   = 2
	moduleOpFloat  = 3
	moduleOpDouble = 4
	moduleOpString = 5
)

// skipModuleBody walks module opcodes up to the EOF opcode, as
// redis-check-rdb does without the module.
func (r *Reader) skipModuleBody() error {
	for {
		op, err := r.readLen()
		if err != nil {
			return err
		}
		switch op {
		case moduleOpEOF:
			return nil
		case moduleOpSint, moduleOpUint:
			_, err = r.readLen()
		case moduleOpFloat:
			err = r.in.skip(4)
		case moduleOpDouble:
			err = r.in.skip(8)
		case moduleOpString:
			err = r.skipString()
		default:
			return fmt.Errorf("%w: unknown module opcode %d", ErrCorrupt, op)
		}
		if err != nil {
			return err
		}
	}
}

func (r *Reader) skipDFMask() error {
	p, err := r.in.take(4)
	if err != nil {
		return err
	}
	if le32(p)&2 != 0 {
		return r.in.skip(4)
	}
	return nil
}

func (r *Reader) skipVectorIndex() error {
	if err := r.skipString(); err != nil {
		return err
	}
	if err := r.skipLens(1); err != nil {
		return err
	}
	return r.each(func() error {
		p, err := r.in.take(16) // u32 id, u64 global id, u32 level
		if err != nil {
			return err
		}
		levels := uint64(le32(p[12:])) + 1
		for l := uint64(0); l < levels; l++ {
			q, err := r.in.take(4)
			if err != nil {
				return err
			}
			if err := r.in.skip(4 * uint64(le32(q))); err != nil {
				return err
			}
		}
		return nil
	})
}

func (r *Reader) skipShardDocIndex() error {
	if err := r.skipLens(1); err != nil {
		return err
	}
	if err := r.skipString(); err != nil {
		return err
	}
	return r.each(r.skipStringLen)
}

// skipStringLen walks a string and a length.
func (r *Reader) skipStringLen() error {
	if err := r.skipString(); err != nil {
		return err
	}
	return r.skipLens(1)
}

func le32(p []byte) uint32 {
	return uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16 | uint32(p[3])<<24
}

func le64(p []byte) uint64 {
	return uint64(le32(p)) | uint64(le32(p[4:]))<<32
}
