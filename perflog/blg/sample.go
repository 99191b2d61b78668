package blg

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/rawlog"
	"github.com/perfcounters/perfcounters/utf16le"
)

// Sub-record kinds of a sample record ("BL", 3, kind, uint32 length).
const (
	subSample  = 0x00 // the whole sample: the sub-records follow
	subRaw     = 0x01 // one PDH_RAW_COUNTER
	subRawList = 0x02 // the instances of a counter with a wildcard instance
	subBlock   = 0x05 // one PERF_DATA_BLOCK (a wildcard object)
	subHeader  = 8
	rawSize    = 40 // PDH_RAW_COUNTER as stored (8-byte aligned)
	itemSize   = 24 // one instance of a subRawList
	listHead   = 24 // subRawList header after the sub-record header
	maxItems   = 1 << 20
)

// decodeSample decodes one sample record.
func (l *Log) decodeSample(b []byte, rec *record) (*pdh.Sample, error) {
	if l.rows == nil {
		l.rows = l.plan.Rows()
	}
	rows := l.rows
	raw, err := l.decodeRows(b, rows)
	if err != nil {
		return nil, err
	}
	s, err := pdh.NewSample(raw)
	if err != nil {
		return nil, err
	}
	s.Time = l.localTime(rec.stamp)
	if rows.Len() > 0 {
		if err := rows.AppendTo(s, l.hdr.PerfFreq); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// decodeRows decodes one sample record's listed values into rows (reset
// first) and returns its whole blocks (wildcard objects) as they lie.
func (l *Log) decodeRows(b []byte, rows *rawlog.Rows) ([][]byte, error) {
	if len(b) < subHeader || string(b[:3]) != "BL\x03" || b[3] != subSample {
		return nil, fmt.Errorf("sample record starts with % x, not the sample header \"BL\" 03 00", b[:min(len(b), 4)])
	}
	total := int(le.Uint32(b[4:]))
	if total < subHeader || total > len(b) {
		return nil, fmt.Errorf("sample header: length %d outside %d..%d", total, subHeader, len(b))
	}
	b = b[:total]
	var raw [][]byte
	rows.Reset()
	k := 0
	for off := subHeader; off < total; k++ {
		if total-off < subHeader {
			return nil, fmt.Errorf("sub-record at byte %d: %d bytes left, a header needs %d", off, total-off, subHeader)
		}
		if string(b[off:off+3]) != "BL\x03" {
			return nil, fmt.Errorf("sub-record at byte %d starts with % x, not \"BL\" 03", off, b[off:off+3])
		}
		kind := b[off+3]
		n := int(le.Uint32(b[off+4:]))
		if n < subHeader || n > total-off {
			return nil, fmt.Errorf("sub-record at byte %d: length %d outside %d..%d", off, n, subHeader, total-off)
		}
		sub := b[off : off+n]
		switch kind {
		case subBlock:
			// b is the reader's buffer, read over for the next record:
			// the sample's block gets memory of its own.
			raw = append(raw, bytes.Clone(sub[subHeader:]))
		case subRaw, subRawList:
			if k >= len(l.list) || l.slots[k] < 0 {
				return nil, fmt.Errorf("sub-record %d at byte %d: raw counter values, but the counter list has no listed counter %d", k, off, k)
			}
			c := l.list[k]
			if kind == subRaw {
				if n < subHeader+rawSize {
					return nil, fmt.Errorf("sub-record %d at byte %d: length %d, a raw counter needs %d", k, off, n, subHeader+rawSize)
				}
				v := rawlog.Value{Status: le.Uint32(sub[8:]), First: int64(le.Uint64(sub[24:])), Second: int64(le.Uint64(sub[32:])), Multi: le.Uint32(sub[40:])}
				if err := rows.Set(l.slots[k], l.instanceKey(k, c), v); err != nil {
					return nil, err
				}
				break
			}
			if err := l.decodeRawList(sub, off, k, l.slots[k], rows); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("sub-record %d at byte %d: unknown kind %d", k, off, kind)
		}
		off += n
	}
	return raw, nil
}

// decodeRawList reads the instances of a wildcard-instance counter: a
// header (size, count, status, time stamp) and count items of name offset,
// multi count, first and second value; names follow the items.
func (l *Log) decodeRawList(sub []byte, off, k, counter int, rows *rawlog.Rows) error {
	n := len(sub)
	if n < subHeader+listHead {
		return fmt.Errorf("sub-record %d at byte %d: length %d, an instance list needs %d", k, off, n, subHeader+listHead)
	}
	count := int(le.Uint32(sub[12:]))
	if count > maxItems || subHeader+listHead+count*itemSize > n {
		return fmt.Errorf("sub-record %d at byte %d: %d instances do not fit in %d bytes", k, off, count, n)
	}
	status := le.Uint32(sub[16:])
	base := sub[subHeader:]
	for i := range count {
		it := sub[subHeader+listHead+i*itemSize:]
		no := int(le.Uint32(it[0:]))
		if no < listHead+count*itemSize || no >= len(base) || no%2 != 0 {
			return fmt.Errorf("sub-record %d at byte %d: instance %d: name offset %d outside the names (%d..%d)", k, off, i, no, listHead+count*itemSize, len(base))
		}
		name, ok := l.sameName(k, i, base[no:])
		if !ok {
			e := utf16le.IndexNUL(base[no:])
			if e < 0 {
				return fmt.Errorf("sub-record %d at byte %d: instance %d: name at %d has no NUL", k, off, i, no)
			}
			name = l.instanceName(k, i, base[no:no+e])
		}
		v := rawlog.Value{Status: status, Multi: le.Uint32(it[4:]), First: int64(le.Uint64(it[8:])), Second: int64(le.Uint64(it[16:]))}
		if l.list[k].Parent != "" {
			// A list of instances with parents (Thread(*/*)) names
			// them as PDH's arrays do, "parent/instance#n": the
			// instance is what follows the last '/'.
			if p := strings.LastIndexByte(name, '/'); p >= 0 {
				if err := rows.SetParent(counter, name[:p], name[p+1:], v); err != nil {
					return err
				}
				continue
			}
		}
		if err := rows.Set(counter, name, v); err != nil {
			return err
		}
	}
	return nil
}

// instanceKey is the instance of list entry k as a sample names it
// ("name#n" for a duplicate), made once.
func (l *Log) instanceKey(k int, c Counter) string {
	if c.Index == 0 {
		return c.Instance
	}
	if l.instKeys == nil {
		l.instKeys = make([]string, len(l.list))
	}
	if l.instKeys[k] == "" {
		l.instKeys[k] = fmt.Sprintf("%s#%d", c.Instance, c.Index)
	}
	return l.instKeys[k]
}

// sameName returns the name instance i of list entry k had in the last
// sample when b (the names from the instance's on) starts with the same
// UTF-16 name and its NUL.
func (l *Log) sameName(k, i int, b []byte) (string, bool) {
	if k >= len(l.names) || i >= len(l.names[k]) {
		return "", false
	}
	c := &l.names[k][i]
	n := len(c.raw)
	if len(b) < n+2 || b[n] != 0 || b[n+1] != 0 || string(b[:n]) != c.raw {
		return "", false
	}
	return c.name, true
}

// cachedName is an instance name of a raw list as the last sample had it.
type cachedName struct{ raw, name string }

// instanceName decodes the UTF-16 name of instance i of list entry k's
// raw list, reusing the last sample's string when the bytes are the same:
// a log's samples mostly name the same instances, and decoding them
// again costs a string each.
func (l *Log) instanceName(k, i int, b []byte) string {
	if l.names == nil {
		l.names = make([][]cachedName, len(l.list))
	}
	c := l.names[k]
	if i < len(c) && c[i].raw == string(b) {
		return c[i].name
	}
	name := utf16le.DecodeLenient(b)
	switch {
	case i < len(c):
		c[i] = cachedName{string(b), name}
	case i == len(c):
		l.names[k] = append(c, cachedName{string(b), name})
	}
	return name
}
