package blg

import (
	"fmt"

	"github.com/perfcounters/perfcounters/internal/utf16le"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/rawlog"
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
	raw, err := l.decodeRows(b, rows, nil)
	if err != nil {
		return nil, err
	}
	s, err := pdh.NewSample(raw)
	if err != nil {
		return nil, err
	}
	s.Time = l.localTime(rec.stamp)
	if rows.Len() > 0 {
		built, err := rows.Build(s.Time, l.hdr.PerfFreq)
		if err != nil {
			return nil, err
		}
		s.Blocks = append(s.Blocks, built.Blocks...)
		s.Problems = append(s.Problems, built.Problems...)
	}
	return s, nil
}

// decodeRows decodes one sample record's listed values into rows (reset
// first) and returns its whole blocks (wildcard objects) as they lie.
// lay, when not nil, learns where the record's values lie.
func (l *Log) decodeRows(b []byte, rows *rawlog.Rows, lay *layout) ([][]byte, error) {
	if len(b) < subHeader || string(b[:3]) != "BL\x03" || b[3] != subSample {
		return nil, fmt.Errorf("sample record starts with % x, not the sample header \"BL\" 03 00", b[:min(len(b), 4)])
	}
	total := int(le.Uint32(b[4:]))
	if total < subHeader || total > len(b) {
		return nil, fmt.Errorf("sample header: length %d outside %d..%d", total, subHeader, len(b))
	}
	lay.start(b)
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
			raw = append(raw, sub[subHeader:])
		case subRaw, subRawList:
			if k >= len(l.list) || l.slots[k] < 0 {
				return nil, fmt.Errorf("sub-record %d at byte %d: raw counter values, but the counter list has no listed counter %d", k, off, k)
			}
			c := l.list[k]
			if kind == subRaw {
				if n < subHeader+rawSize {
					return nil, fmt.Errorf("sub-record %d at byte %d: length %d, a raw counter needs %d", k, off, n, subHeader+rawSize)
				}
				if err := rows.Set(l.slots[k], l.instanceKey(k, c), rawValue(b, off)); err != nil {
					return nil, err
				}
				lay.value(off, off, false)
				break
			}
			if err := l.decodeRawList(sub, off, k, l.slots[k], rows, lay); err != nil {
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
func (l *Log) decodeRawList(sub []byte, off, k, counter int, rows *rawlog.Rows, lay *layout) error {
	n := len(sub)
	if n < subHeader+listHead {
		return fmt.Errorf("sub-record %d at byte %d: length %d, an instance list needs %d", k, off, n, subHeader+listHead)
	}
	count := int(le.Uint32(sub[12:]))
	if count > maxItems || subHeader+listHead+count*itemSize > n {
		return fmt.Errorf("sub-record %d at byte %d: %d instances do not fit in %d bytes", k, off, count, n)
	}
	base := sub[subHeader:]
	lay.span(off+listStatus, off+subHeader+listHead) // the list's status and time stamp
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
		at := off + subHeader + listHead + i*itemSize
		if err := rows.Set(counter, name, itemValue(sub, at-off)); err != nil {
			return err
		}
		lay.value(at, off, true)
	}
	return nil
}

// Where a sample record's values lie: a raw counter's PDH_RAW_COUNTER
// after its sub-record header; an instance list's status (one for its
// instances) and time stamp in its header, and each item's values after
// its name offset.
const (
	rawValues  = subHeader     // a raw counter's status, time stamp and values
	listStatus = subHeader + 8 // an instance list's status
	itemValues = 4             // an item's multi count, first and second value
)

// rawValue is the value of the raw counter sub-record at off in b.
func rawValue(b []byte, off int) rawlog.Value {
	sub := b[off:]
	return rawlog.Value{Status: le.Uint32(sub[8:]), First: int64(le.Uint64(sub[24:])), Second: int64(le.Uint64(sub[32:])), Multi: le.Uint32(sub[40:])}
}

// itemValue is the value of the instance list item at it in the list
// sub-record sub.
func itemValue(sub []byte, it int) rawlog.Value {
	item := sub[it:]
	return rawlog.Value{Status: le.Uint32(sub[listStatus:]), Multi: le.Uint32(item[4:]), First: int64(le.Uint64(item[8:])), Second: int64(le.Uint64(item[16:]))}
}

// layout is where a listed-counter sample record's values lie, learnt
// as decodeRows decoded it: a record laid out alike (the same bytes but
// for the values: the same counters, instance names and lengths) sets
// the same values in the same order, so its values are put into the Rows
// the first one was decoded into (rawlog.Rows.Refill) without decoding
// its names again. SampleRows keeps it as the Rows' memo.
type layout struct {
	rec    []byte    // the record learnt, copied
	values [][2]int  // the byte ranges of values, in order, not overlapping
	sites  []valueAt // each value set, in order
}

// valueAt is one value of a record: a raw counter's sub-record, or an
// item of an instance list (list: the list sub-record's offset).
type valueAt struct {
	at, list int
	item     bool
}

// start begins learning the record b.
func (lay *layout) start(b []byte) {
	if lay == nil {
		return
	}
	lay.rec = append(lay.rec[:0], b...)
	lay.values, lay.sites = lay.values[:0], lay.sites[:0]
}

// span marks b[from:to] as values.
func (lay *layout) span(from, to int) {
	if lay != nil {
		lay.values = append(lay.values, [2]int{from, to})
	}
}

// value notes the value set next: the raw counter sub-record at at, or
// (item) the item at at of the list at list.
func (lay *layout) value(at, list int, item bool) {
	if lay == nil {
		return
	}
	lay.sites = append(lay.sites, valueAt{at: at, list: list, item: item})
	if item {
		lay.span(at+itemValues, at+itemSize)
	} else {
		lay.span(at+rawValues, at+subHeader+rawSize)
	}
}

// alike reports whether b is laid out as the record learnt: the same
// length and the same bytes outside the values.
func (lay *layout) alike(b []byte) bool {
	if len(b) != len(lay.rec) {
		return false
	}
	from := 0
	for _, v := range lay.values {
		if string(b[from:v[0]]) != string(lay.rec[from:v[0]]) {
			return false
		}
		from = v[1]
	}
	return string(b[from:]) == string(lay.rec[from:])
}

// refill puts the values of b, a record alike (alike), into rows, which
// holds the values of the record learnt.
func (lay *layout) refill(b []byte, rows *rawlog.Rows) error {
	rows.Refill()
	for i, s := range lay.sites {
		var v rawlog.Value
		if s.item {
			v = itemValue(b[s.list:], s.at-s.list)
		} else {
			v = rawValue(b, s.at)
		}
		if err := rows.Put(i, v); err != nil {
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
