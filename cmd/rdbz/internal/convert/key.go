package convert

import (
	"errors"
	"fmt"

	"github.com/rdbz/rdbz/rdbio"
)

// key handles a key record: its value passes through when the target reads
// its type, and is dropped or refused otherwise.
func (c *converter) key(rec *rdbio.Record) error {
	name := rec.Type.String()
	if !c.target.ReadsType(rec.Type) {
		if done, err := c.reencode(rec, name); done || err != nil {
			return err
		}
		why := fmt.Sprintf("value type %d (%s) needs %s", rec.Op, name, needed(name))
		return c.drop(name, rec.Key, true, rec.Offset, why, "the key", false)
	}
	if rec.Type == rdbio.TypeModule2 {
		return c.moduleValue(rec)
	}
	c.prefix = -1
	c.rep.Keys++
	if rdbio.IsList(rec.Type) {
		return c.list(rec)
	}
	return c.r.Value().Copy(through{c.g})
}

// moduleValue holds a module value (up to the cap) to learn its module,
// then keeps it if the target loads that module's values.
func (c *converter) moduleValue(rec *rdbio.Record) error {
	capBytes := c.cap
	c.module.Reset(capBytes)
	info, err := c.r.Value().Count(&c.module)
	if err != nil {
		return err
	}
	if cause, _ := c.target.ModuleCause(info.Module); cause != "" {
		return c.drop("module", rec.Key, true, rec.Offset, cause, "the key", true)
	}
	if c.module.Over {
		return fmt.Errorf("offset %d, key %q: module value over the cap (%d bytes): %w", rec.Offset, rec.Key, capBytes, rdbio.ErrUnsupported)
	}
	c.prefix = -1
	c.rep.Keys++
	_, err = through{c.g}.Write(c.module.Buf)
	return err
}

// errZstdNode is the error of an rdbz-compressed node: Convert reads an
// RDB; an rdbz file is turned back into one first (listcodec.Open).
var errZstdNode = errors.New("rdbz-compressed list node (0xC4): decode it first (rdbz decompress)")

// list copies a list value node by node: the target is a stock server, so
// an rdbz-compressed node is an error here.
func (c *converter) list(rec *rdbio.Record) error {
	out := through{c.g}
	nodes, err := c.r.Value().Nodes()
	if err != nil {
		return err
	}
	for nodes.Next() {
		n := nodes.Node()
		if n.Enc == rdbio.EncZstd {
			return fmt.Errorf("offset %d, key %q: %w", n.Offset, rec.Key, errZstdNode)
		}
		if _, err := out.Write(n.Raw); err != nil {
			return err
		}
		if n.Data != nil {
			_, err = out.Write(n.Data)
		} else {
			err = nodes.CopyData(out)
		}
		if err != nil {
			return err
		}
	}
	return nodes.Err()
}
