package perfdata

import (
	"fmt"
	"reflect"
)

// A model is a block decoded into plain Go values, so that two blocks can
// be compared with reflect.DeepEqual whatever their byte layout.
type model struct {
	Header  Header
	Objects []modelObject
}

type modelObject struct {
	Spec      ObjectSpec
	NumInst   int32
	Counters  []CounterSpec
	Instances []modelInstance
	Single    []modelValue // NumInstances -1
}

type modelInstance struct {
	Name                   string
	ParentIndex, ParentPos uint32
	UniqueID               int32
	Values                 []modelValue
}

type modelValue struct {
	N     uint64
	Multi uint32
	Text  string
}

// readValues reads every counter of c as the reader presents it.
func readValues(defs []CounterDef, c CounterBlock) []modelValue {
	vs := make([]modelValue, len(defs))
	for i, d := range defs {
		v := modelValue{N: c.Value(d)}
		if d.Type.IsText() {
			v = modelValue{Text: c.Text(d)}
		}
		if d.Type.Multi() && !d.Type.IsBase() {
			v.Multi = c.Multi(d)
		}
		vs[i] = v
	}
	return vs
}

// decodeModel walks every accessor of a parsed block.
func decodeModel(b Block) model {
	m := model{Header: b.Header()}
	for it := b.Objects(); it.Next(); {
		o := it.Object()
		mo := modelObject{
			Spec: ObjectSpec{
				NameIndex: o.NameIndex(), HelpIndex: o.HelpIndex(), DetailLevel: o.DetailLevel(),
				DefaultCounter: o.DefaultCounter(), CodePage: o.CodePage(),
				PerfTime: o.PerfTime(), PerfFreq: o.PerfFreq(), Single: o.NumInstances() == NoInstances,
			},
			NumInst: o.NumInstances(),
		}
		defs := o.AppendCounters(nil)
		for i, d := range defs {
			if d != o.Counter(i) {
				panic("AppendCounters and Counter disagree")
			}
			mo.Counters = append(mo.Counters, CounterSpec{
				NameIndex: d.NameIndex, HelpIndex: d.HelpIndex, DefaultScale: d.DefaultScale,
				DetailLevel: d.DetailLevel, Type: d.Type, Size: d.Size,
			})
		}
		if o.NumInstances() == NoInstances {
			mo.Single = readValues(defs, o.SingleBlock())
		}
		for jt := o.Instances(); jt.Next(); {
			in := jt.Instance()
			mo.Instances = append(mo.Instances, modelInstance{
				Name: in.Name(), ParentIndex: in.ParentObjectTitleIndex(), ParentPos: in.ParentObjectInstance(),
				UniqueID: in.UniqueID(), Values: readValues(defs, in.Block()),
			})
		}
		m.Objects = append(m.Objects, mo)
	}
	return m
}

// encodeModel writes m with a Builder. Objects whose metadata-only or
// empty state the Builder cannot express are reported as errors.
func encodeModel(b *Builder, m model) ([]byte, error) {
	b.Reset(m.Header)
	for _, o := range m.Objects {
		l, err := NewLayout(o.Counters)
		if err != nil {
			return nil, err
		}
		if err := b.BeginObject(o.Spec, l, o.Counters); err != nil {
			return nil, err
		}
		set := func(v Values, vals []modelValue) {
			for i, x := range vals {
				t := o.Counters[i].Type
				switch {
				case t.IsText():
					v.SetText(i, x.Text, t.Subtype() == 0x00010000)
				default:
					v.Set(i, x.N)
				}
				v.SetMulti(i, x.Multi)
			}
		}
		switch {
		case o.Spec.Single:
			set(b.Single(), o.Single)
		case o.NumInst < 0:
			return nil, fmt.Errorf("NumInstances %d cannot be built", o.NumInst)
		default:
			for _, in := range o.Instances {
				set(b.Instance(in.Name, in.ParentIndex, in.ParentPos, in.UniqueID), in.Values)
			}
		}
		if err := b.EndObject(); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

// sameModel compares everything but the lengths, which depend on layout.
func sameModel(a, b model) bool {
	a.Header.TotalByteLength, b.Header.TotalByteLength = 0, 0
	a.Header.HeaderLength, b.Header.HeaderLength = 0, 0
	a.Header.LittleEndian, b.Header.LittleEndian = 0, 0
	a.Header.Version, b.Header.Version = 0, 0
	a.Header.Revision, b.Header.Revision = 0, 0
	return reflect.DeepEqual(a, b)
}
