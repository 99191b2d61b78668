package system

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/proctext"
)

// Hardware sensors: hwmon (Documentation/hwmon/sysfs-interface.rst of the
// kernel) and thermal zones (Documentation/driver-api/thermal/
// sysfs-api.rst). Units as the kernel writes them: temperatures in
// millidegrees Celsius, fan speeds in RPM, power in microwatts.

// sensorKind is the kind of an hwmon sensor, by its file prefix.
type sensorKind int

const (
	sensorTemp sensorKind = iota
	sensorFan
	sensorPower
)

// sensor is one hwmon input.
type sensor struct {
	name string // instance name: "chip:label"
	file string // the input file, relative to /sys
}

// maxSensors bounds the sensors of one kind a host may declare.
const maxSensors = 4096

// listSensors finds the hwmon inputs of a kind: for each
// /sys/class/hwmon/hwmonN, every <prefix>M_input (power also
// <prefix>M_average where there is no input), named by the chip's name
// file and the input's label file (or "<prefix>M" without one).
func (c *Collector) listSensors(kind sensorKind) ([]sensor, error) {
	prefix := [...]string{"temp", "fan", "power"}[kind]
	chips, err := fsReadDir(c.Sys, "class/hwmon")
	if err != nil {
		return nil, err
	}
	var out []sensor
	for _, chip := range chips {
		if !strings.HasPrefix(chip.Name(), "hwmon") {
			continue
		}
		dir := "class/hwmon/" + chip.Name() + "/"
		ents, err := fsReadDir(c.Sys, strings.TrimSuffix(dir, "/"))
		if err != nil {
			continue
		}
		chipName := chip.Name()
		if b, err := c.readFile(c.Sys, dir+"name"); err == nil {
			if n := strings.TrimSpace(string(b)); n != "" && len(n) <= 64 {
				chipName = n
			}
		}
		var nums []int
		input := map[int]string{}
		for _, e := range ents {
			n := e.Name()
			rest, ok := strings.CutPrefix(n, prefix)
			if !ok {
				continue
			}
			num, suffix, ok := strings.Cut(rest, "_")
			k, err := strconv.Atoi(num)
			if !ok || err != nil || k < 0 || k > 1<<16 {
				continue
			}
			switch {
			case suffix == "input":
				if _, had := input[k]; !had {
					nums = append(nums, k)
				}
				input[k] = n
			case suffix == "average" && kind == sensorPower:
				if _, had := input[k]; !had {
					nums = append(nums, k)
					input[k] = n
				}
			}
		}
		slices.Sort(nums)
		for _, k := range nums {
			label := prefix + strconv.Itoa(k)
			if b, err := c.readFile(c.Sys, dir+prefix+strconv.Itoa(k)+"_label"); err == nil {
				if l := strings.TrimSpace(string(b)); l != "" && len(l) <= 64 {
					label = l
				}
			}
			out = append(out, sensor{name: chipName + ":" + label, file: dir + input[k]})
			if len(out) >= maxSensors {
				return out, nil
			}
		}
	}
	return out, nil
}

// parseSensorValue parses one sensor file: a signed decimal integer.
func parseSensorValue(b []byte) (int64, error) {
	f := proctext.TrimSpace(b)
	neg := len(f) > 0 && f[0] == '-'
	if neg {
		f = f[1:]
	}
	v, ok := proctext.ParseUint(f)
	if !ok || v > 1<<62 {
		return 0, fmt.Errorf("%.40q is not a number", proctext.TrimSpace(b))
	}
	if neg {
		return -int64(v), nil
	}
	return int64(v), nil
}

// kelvin converts millidegrees Celsius to Kelvin and tenths of Kelvin, as
// Windows' Thermal Zone Information counters hold them; ok is false below
// absolute zero (a sensor's error value).
func kelvin(milliC int64) (k, tenths uint64, ok bool) {
	mk := milliC + 273150
	if mk < 0 {
		return 0, 0, false
	}
	return uint64(mk+500) / 1000, uint64(mk+50) / 100, true
}

const tempHelp = "Temperature is the temperature in Kelvin (subtract 273.15 for degrees Celsius), as Windows' Thermal Zone Information shows it: the millidegrees Celsius of /sys/class/thermal/thermal_zoneN/temp (Thermal Zone Information) or of /sys/class/hwmon/hwmonN/tempM_input (Temperature Sensor), plus 273150, rounded to whole Kelvin."
const tempHPHelp = "High Precision Temperature is the temperature in tenths of Kelvin, from the same file as Temperature (millidegrees Celsius plus 273150, over 100)."

// sensorObjects returns the hwmon objects the host has sensors for:
// Temperature Sensor, Fan and Power Meter, each declared only where
// /sys/class/hwmon has an input of its kind.
func (c *Collector) sensorObjects() []Object {
	var objs []Object
	if c.Sys == nil {
		return nil
	}
	if s, _ := c.listSensors(sensorTemp); len(s) > 0 {
		set := newSet("Temperature Sensor", 0, counterset.Multiple, detNovice, 0,
			"The Temperature Sensor object shows each temperature input of the host's hardware monitoring chips (Linux hwmon: /sys/class/hwmon/hwmonN/tempM_input), named by the chip's name file and the input's label (tempM_label), \"coretemp:Package id 0\", \"nvme:Composite\"; inputs without a label are named tempM. The object is declared when the host has such an input when the program starts; inputs are listed again at every sample.",
			[]counterset.Counter{
				ctr("Temperature", tRaw, 0, detNovice, tempHelp),
				ctr("High Precision Temperature", tRaw, 0, detNovice, tempHPHelp),
			})
		objs = append(objs, Object{Set: set, Collect: func(c *Collector, col Collection, w Writer) error {
			return c.collectSensors(col, w, sensorTemp)
		}})
	}
	if s, _ := c.listSensors(sensorFan); len(s) > 0 {
		set := newSet("Fan", 0, counterset.Multiple, detNovice, 0,
			"The Fan object shows each fan speed input of the host's hardware monitoring chips (/sys/class/hwmon/hwmonN/fanM_input), named by the chip's name and the input's label (fanM_label), or fanM.",
			[]counterset.Counter{
				ctr("Fan Speed (RPM)", tRaw, 0, detNovice, "Fan Speed (RPM) is the fan's speed in revolutions per minute (fanM_input of /sys/class/hwmon/hwmonN)."),
			})
		objs = append(objs, Object{Set: set, Collect: func(c *Collector, col Collection, w Writer) error {
			return c.collectSensors(col, w, sensorFan)
		}})
	}
	if s, _ := c.listSensors(sensorPower); len(s) > 0 {
		set := newSet("Power Meter", 0, counterset.Multiple, detNovice, 0,
			"The Power Meter object shows each power input of the host's hardware monitoring chips (/sys/class/hwmon/hwmonN/powerM_input, or powerM_average where the chip reports only an average), named by the chip's name and the input's label (powerM_label), or powerM. Windows' Power Meter object has the same counter.",
			[]counterset.Counter{
				ctr("Power", tLargeRaw, 0, detNovice, "Power is the power in milliwatts (powerM_input, or powerM_average, of /sys/class/hwmon/hwmonN, in microwatts, divided by 1000)."),
			})
		objs = append(objs, Object{Set: set, Collect: func(c *Collector, col Collection, w Writer) error {
			return c.collectSensors(col, w, sensorPower)
		}})
	}
	if z, _ := c.listThermalZones(); len(z) > 0 {
		set := newSet("Thermal Zone Information", 0, counterset.Multiple, detNovice, 0,
			"The Thermal Zone Information object shows each thermal zone of the host (/sys/class/thermal/thermal_zoneN), named by its type file (x86_pkg_temp, acpitz, ...; zones of the same type are told apart by #index), with the temperature counters of Windows' object of the same name. Windows' % Passive Limit and Throttle Reasons are left out: Linux exposes its cooling state per cooling device, not per zone.",
			[]counterset.Counter{
				ctr("Temperature", tRaw, 0, detNovice, tempHelp),
				ctr("High Precision Temperature", tRaw, 0, detNovice, tempHPHelp),
			})
		objs = append(objs, Object{Set: set, Collect: (*Collector).collectThermalZones})
	}
	return objs
}

func (c *Collector) collectSensors(col Collection, w Writer, kind sensorKind) error {
	list, err := c.listSensors(kind)
	if err != nil {
		return err
	}
	for _, s := range list {
		v := w.Instance(s.name, 0, 0, -1)
		if kind == sensorTemp {
			if k, t, ok := c.readKelvin(col, s.file); ok {
				v.Set(0, k)
				v.Set(1, t)
			}
			continue
		}
		x, ok := c.readSensor(col, s.file)
		if !ok {
			continue
		}
		switch kind {
		case sensorFan:
			v.Set(0, uint64(max(x, 0)))
		case sensorPower:
			v.Set(0, uint64(max(x, 0))/1000)
		}
	}
	return nil
}

// thermalZone is one thermal zone.
type thermalZone struct{ name, file string }

// listThermalZones lists /sys/class/thermal/thermal_zoneN, in zone
// number order, named by their type.
func (c *Collector) listThermalZones() ([]thermalZone, error) {
	ents, err := fsReadDir(c.Sys, "class/thermal")
	if err != nil {
		return nil, err
	}
	type zn struct {
		n   int
		dir string
	}
	var zs []zn
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), "thermal_zone")
		n, err := strconv.Atoi(rest)
		if ok && err == nil && n >= 0 {
			zs = append(zs, zn{n, e.Name()})
		}
	}
	slices.SortFunc(zs, func(a, b zn) int { return a.n - b.n })
	var out []thermalZone
	for _, z := range zs {
		dir := "class/thermal/" + z.dir + "/"
		name := z.dir
		if b, err := c.readFile(c.Sys, dir+"type"); err == nil {
			if t := strings.TrimSpace(string(b)); t != "" && len(t) <= 64 {
				name = t
			}
		}
		out = append(out, thermalZone{name: name, file: dir + "temp"})
		if len(out) >= maxSensors {
			break
		}
	}
	return out, nil
}

func (c *Collector) collectThermalZones(col Collection, w Writer) error {
	zones, err := c.listThermalZones()
	if err != nil {
		return err
	}
	for _, z := range zones {
		v := w.Instance(z.name, 0, 0, -1)
		if k, t, ok := c.readKelvin(col, z.file); ok {
			v.Set(0, k)
			v.Set(1, t)
		}
	}
	return nil
}

// readSensor reads one sensor file of /sys (an integer); a file that
// cannot be read or parsed is reported through col, and the instance
// last started marked unavailable.
func (c *Collector) readSensor(col Collection, file string) (int64, bool) {
	b, err := c.readSys(file)
	if err != nil {
		partialf(col, "%v", err)
		col.Unavailable()
		return 0, false
	}
	x, err := parseSensorValue(b)
	if err != nil {
		partialf(col, "/sys/%s: %v", file, err)
		col.Unavailable()
		return 0, false
	}
	return x, true
}

// readKelvin reads a temperature file (millidegrees Celsius) as kelvin
// and tenths of kelvin (kelvin), as readSensor does.
func (c *Collector) readKelvin(col Collection, file string) (k, tenths uint64, ok bool) {
	x, ok := c.readSensor(col, file)
	if !ok {
		return 0, 0, false
	}
	if k, tenths, ok = kelvin(x); !ok {
		partialf(col, "/sys/%s: %d millidegrees is below absolute zero", file, x)
		col.Unavailable()
	}
	return k, tenths, ok
}

// parseCPUInfoMHz reads the "processor" and "cpu MHz" lines of
// /proc/cpuinfo (x86 and others that print it) and calls put with each
// processor's id and its frequency in kHz. A "cpu MHz" line before any
// "processor" line, or a malformed one, is an error naming the line.
func parseCPUInfoMHz(b []byte, put func(cpu int, khz uint64)) error {
	cpu := -1
	for lineNo := 1; len(b) > 0; lineNo++ {
		var line []byte
		line, b = proctext.NextLine(b)
		k, v, ok := strings.Cut(string(line), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "processor":
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 0 || n >= maxCPUs {
				return fmt.Errorf("line %d: processor: %.40q is not a CPU number", lineNo, strings.TrimSpace(v))
			}
			cpu = n
		case "cpu MHz":
			if cpu < 0 {
				return fmt.Errorf("line %d: cpu MHz before any processor line", lineNo)
			}
			khz, ok := parseMilli([]byte(strings.TrimSpace(v)))
			if !ok {
				return fmt.Errorf("line %d: cpu MHz: %.40q is not a number", lineNo, strings.TrimSpace(v))
			}
			put(cpu, khz)
		}
	}
	return nil
}

// parseMilli parses a decimal with up to three decimals into thousandths
// ("2445.422" -> 2445422); further decimals are cut.
func parseMilli(b []byte) (uint64, bool) {
	ip, fp, _ := strings.Cut(string(b), ".")
	i, ok := proctext.ParseUint([]byte(ip))
	if !ok || i > 1<<40 {
		return 0, false
	}
	var f uint64
	for k := 0; k < 3; k++ {
		f *= 10
		if k < len(fp) {
			if fp[k] < '0' || fp[k] > '9' {
				return 0, false
			}
			f += uint64(fp[k] - '0')
		}
	}
	for k := 3; k < len(fp); k++ {
		if fp[k] < '0' || fp[k] > '9' {
			return 0, false
		}
	}
	return i*1000 + f, true
}
