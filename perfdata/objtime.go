package perfdata

import "encoding/binary"

// SetObjectTime sets PerfTime and PerfFreq of the object being built, the
// object timer of PERF_OBJECT_TIMER and PERF_ELAPSED_TIME counters. Collect
// functions learn the time only while collecting, after BeginObject; outside
// an open object it does nothing.
func (b *Builder) SetObjectTime(perfTime, perfFreq int64) {
	if !b.open || b.objStart+ObjectTypeSize > len(b.buf) {
		return
	}
	o := b.buf[b.objStart:]
	binary.LittleEndian.PutUint64(o[oPerfTime:], uint64(perfTime))
	binary.LittleEndian.PutUint64(o[oPerfFreq:], uint64(perfFreq))
}
