package system

import (
	"fmt"
	"testing"
	"testing/fstest"
	"time"
)

// TestStatSharedPerSample: the objects of one sample (one Collection.Seq)
// read /proc/stat once, so System's context switches come from the
// snapshot Processor read; a new sample, or an unknown one (Seq 0), reads
// the file again.
func TestStatSharedPerSample(t *testing.T) {
	stat := func(ctxt int) *fstest.MapFile {
		return &fstest.MapFile{Data: fmt.Appendf(nil, "cpu  10 0 10 100 0 0 0 0 0 0\ncpu0 10 0 10 100 0 0 0 0 0 0\nctxt %d\nprocs_running 1\n", ctxt)}
	}
	proc := fstest.MapFS{"stat": stat(100), "uptime": {Data: []byte("100.00 50.00\n")}, "loadavg": {Data: []byte("0.00 0.00 0.00 1/10 99\n")}}
	c := NewCollector(proc, nil, WithUptime(func() time.Duration { return 100 * time.Second }))
	proc1 := objectByName(t, c, "Processor")
	sys := objectByName(t, c, "System")
	ctxt := sys.Set.CounterByName("Context Switches/sec")
	steps := []struct {
		seq       uint64
		processor bool // collect Processor first, in the same sample
		ctxt      int  // /proc/stat's ctxt from now on
		want      uint64
	}{
		{seq: 1, processor: true, ctxt: 200, want: 100}, // System shares Processor's read of sample 1
		{seq: 2, ctxt: 300, want: 300},                  // a new sample reads again
		{seq: 2, ctxt: 400, want: 300},                  // the same sample does not
		{seq: 0, ctxt: 500, want: 500},                  // an unknown one always reads
		{seq: 0, ctxt: 600, want: 600},
	}
	for i, st := range steps {
		if st.processor {
			collectObjectSeq(t, c, proc1, st.seq)
		}
		proc["stat"] = stat(st.ctxt)
		s := collectObjectSeq(t, c, sys, st.seq)
		if got := s.at(t, "", ctxt); got != st.want {
			t.Errorf("step %d (sample %d): Context Switches/sec = %d, want %d", i, st.seq, got, st.want)
		}
	}
}
