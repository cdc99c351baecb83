// Package race is a happens-before data-race detector for the virtual
// threads of one carrier, after FastTrack (Flanagan and Freund, PLDI
// 2009): every thread has a vector clock, every synchronisation object a
// clock that releases and acquires go through, and every shared location
// (an object's field, an array or List element, a Dict) the epoch of its
// last write and of its last reads. Two accesses to a location, one of
// them a write, by threads neither of which happens before the other are
// a data race, reported with both threads and stacks.
//
// The edges come from the scheduler (sched.RaceHook): spawn, the wake of a
// blocked thread by the one that wakes it (unlock→lock, send→receive,
// close, future completion→get, exit→join, release→acquire), and every
// call of a synchronisation native, which acquires and releases on its
// object (so that, say, a buffered send happens before the receive that
// takes its value). That is a superset of the language's happens-before
// order only where a native synchronises without being needed to (a
// failed tryLock): it can hide a race there, never report one that is
// not.
//
// The accesses are seen through the debugger's traps: Instrument patches
// every field, element and collection access of a program, so that a
// program run without the detector runs the very same instructions as
// ever; with it, each access costs a trap.
package race

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unsafe"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// vclock is a vector clock indexed by thread slot.
type vclock []uint32

func (v vclock) get(i int32) uint32 {
	if int(i) < len(v) {
		return v[i]
	}
	return 0
}

// join makes v the pointwise maximum of v and o.
func (v *vclock) join(o vclock) {
	if len(o) > len(*v) {
		*v = append(*v, make(vclock, len(o)-len(*v))...)
	}
	for i, c := range o {
		if c > (*v)[i] {
			(*v)[i] = c
		}
	}
}

// epoch is one thread's clock value: clock c of the thread in slot.
type epoch struct {
	slot  int32
	clock uint32 // 0: none
}

// frameAt is one frame of a stack kept for a report.
type frameAt struct {
	fn *vm.Funcode
	pc int32
}

// access is a recorded access, for the report.
type access struct {
	write  bool
	thread *vm.Thread
	stack  [4]frameAt
}

// cell is the shadow state of one location.
type cell struct {
	obj   any // the container, for the report
	i     int64
	w     epoch
	wAt   access
	r     epoch  // the last read, if reads are ordered
	rs    vclock // the reads of several threads not ordered; nil if r is used
	rAt   access // the last read
	rAtOf map[int32]access
}

// loc names a location: an object, array, List or Dict (by address: a
// map key that hashes fast) and an index.
type loc struct {
	p unsafe.Pointer
	i int64
}

// locOf returns the location of element i of obj, and false if obj is not
// a shared container.
func locOf(obj any, i int64) (loc, bool) {
	var p unsafe.Pointer
	switch o := obj.(type) {
	case *vm.Object:
		p = unsafe.Pointer(o)
	case *vm.Array:
		p = unsafe.Pointer(o)
	case *vm.List:
		p = unsafe.Pointer(o)
	case *vm.Dict:
		p = unsafe.Pointer(o)
	}
	return loc{p, i}, p != nil
}

type threadState struct {
	slot int32
	vc   vclock
}

// A Detector is the race detector of one run: the scheduler's
// sched.RaceHook and the machine's vm.DebugHook. Make one with New.
type Detector struct {
	out     io.Writer
	threads map[*vm.Thread]*threadState
	sync    map[any]vclock
	shadow  map[loc]*cell
	seen    map[string]bool
	races   []*Race
	// the thread of the last access and its state (most accesses follow
	// one of the same thread)
	lastT  *vm.Thread
	lastTS *threadState
	// the last location (a read and a write of it often follow each
	// other) and the accesses of the last function's instructions
	lastL     loc
	lastC     *cell
	sites     map[*vm.Funcode][]site
	lastFn    *vm.Funcode
	lastSites []site
}

// site is what the instruction at a pc accesses (vm.Funcode.AccessOf),
// with its operands resolved: the register of the object, and the field
// number or the register of the index.
type site struct {
	kind     vm.AccessKind
	write    bool
	obj, key int32
}

// A Race is one data race found.
type Race struct {
	Where  string // the location: "Account.balance", "array element", "Dict"
	Report string // the report, as written
	// Key identifies the race by its location's name and the two places.
	Key string
}

// New returns a detector that writes its reports to out (if not nil).
func New(out io.Writer) *Detector {
	return &Detector{out: out, threads: map[*vm.Thread]*threadState{}, sync: map[any]vclock{},
		shadow: map[loc]*cell{}, seen: map[string]bool{}}
}

// Install makes d the race hook of s and the debug hook of m. The program
// must have been instrumented (Instrument).
func (d *Detector) Install(m *vm.Machine, s *sched.Scheduler) error {
	if err := s.SetRaceHook(d); err != nil {
		return err
	}
	m.Hook = d
	return nil
}

// Races returns the races found so far, each once.
func (d *Detector) Races() []*Race { return d.races }

func (d *Detector) state(t *vm.Thread) *threadState {
	if t == d.lastT {
		return d.lastTS
	}
	ts := d.threads[t]
	if ts == nil {
		ts = &threadState{slot: int32(len(d.threads))}
		ts.vc = make(vclock, ts.slot+1)
		ts.vc[ts.slot] = 1
		d.threads[t] = ts
	}
	d.lastT, d.lastTS = t, ts
	return ts
}

func (ts *threadState) epoch() epoch { return epoch{ts.slot, ts.vc[ts.slot]} }
func (ts *threadState) tick()        { ts.vc[ts.slot]++ }

// Spawn implements sched.RaceHook.
func (d *Detector) Spawn(parent, child *vm.Thread) {
	c := d.state(child)
	if parent != nil {
		p := d.state(parent)
		c.vc.join(p.vc)
		p.tick()
	}
}

// Wake implements sched.RaceHook.
func (d *Detector) Wake(wakee, waker *vm.Thread) {
	w := d.state(waker)
	d.state(wakee).vc.join(w.vc)
	w.tick()
}

// Sync implements sched.RaceHook.
func (d *Detector) Sync(t *vm.Thread, obj any) {
	ts := d.state(t)
	l := d.sync[obj]
	ts.vc.join(l)
	l = append(l[:0], ts.vc...)
	d.sync[obj] = l
	ts.tick()
}

// Exit implements sched.RaceHook.
func (d *Detector) Exit(t *vm.Thread, fut *sched.Future) {
	ts := d.state(t)
	d.release(t, ts)
	if fut != nil {
		d.release(fut, ts)
	}
	ts.tick()
}

// release joins the clock of ts into obj's.
func (d *Detector) release(obj any, ts *threadState) {
	l := d.sync[obj]
	l.join(ts.vc)
	d.sync[obj] = l
}

// OnTrap implements vm.DebugHook: an instrumented access is about to run.
func (d *Detector) OnTrap(t *vm.Thread, fn *vm.Funcode, pc int32) bool {
	if t.Depth() == 0 {
		return false
	}
	fr := t.Frame(0)
	s := d.site(fn, pc)
	var i int64
	switch s.kind {
	case vm.AccessField:
		i = int64(s.key) // the field number
	case vm.AccessArray, vm.AccessList:
		i = int64(t.Reg(fr, s.key).N)
	case vm.AccessCollection:
		i = -1 // the collection as a whole
	default:
		return false
	}
	obj := t.Reg(fr, s.obj).R
	if l, ok := locOf(obj, i); ok {
		d.access(t, l, obj, s.write)
	}
	return false
}

// site returns what the instruction of fn at pc (as compiled, under the
// trap) accesses.
func (d *Detector) site(fn *vm.Funcode, pc int32) site {
	if fn != d.lastFn {
		sites := d.sites[fn]
		if sites == nil {
			sites = make([]site, len(fn.Code))
			for i := range sites {
				in := fn.Instr(int32(i))
				a := fn.AccessOf(in)
				sites[i] = site{kind: a.Kind, write: a.Write, obj: in.Operand(a.Obj), key: in.Operand(a.Key)}
			}
			if d.sites == nil {
				d.sites = map[*vm.Funcode][]site{}
			}
			d.sites[fn] = sites
		}
		d.lastFn, d.lastSites = fn, sites
	}
	return d.lastSites[pc]
}

// access checks an access of t to l (element i of obj) and records it.
func (d *Detector) access(t *vm.Thread, l loc, obj any, write bool) {
	ts := d.state(t)
	e := ts.epoch()
	c := d.lastC
	if c == nil || l != d.lastL {
		c = d.shadow[l]
		if c == nil {
			c = &cell{obj: obj, i: l.i}
			d.shadow[l] = c
		}
		d.lastL, d.lastC = l, c
	}
	if write {
		if c.w == e {
			return
		}
		if c.w.clock != 0 && c.w.clock > ts.vc.get(c.w.slot) {
			d.report(t, c, write, c.wAt)
		}
		if c.rs != nil {
			for slot, clk := range c.rs {
				if clk != 0 && int32(slot) != ts.slot && clk > ts.vc.get(int32(slot)) {
					d.report(t, c, write, c.rAtOf[int32(slot)])
					break
				}
			}
		} else if c.r.clock != 0 && c.r.slot != ts.slot && c.r.clock > ts.vc.get(c.r.slot) {
			d.report(t, c, write, c.rAt)
		}
		c.w, c.wAt = e, d.at(t, true)
		if c.rs != nil { // FastTrack: shared reads go; an exclusive read stays
			c.r, c.rs, c.rAtOf = epoch{}, nil, nil
		}
		return
	}
	if c.r == e && c.rs == nil {
		return
	}
	if c.w.clock != 0 && c.w.slot != ts.slot && c.w.clock > ts.vc.get(c.w.slot) {
		d.report(t, c, write, c.wAt)
	}
	at := d.at(t, false)
	switch {
	case c.rs != nil:
		for int(ts.slot) >= len(c.rs) {
			c.rs = append(c.rs, 0)
		}
		c.rs[ts.slot] = e.clock
		c.rAtOf[ts.slot] = at
	case c.r.clock == 0 || c.r.slot == ts.slot || c.r.clock <= ts.vc.get(c.r.slot):
		c.r, c.rAt = e, at // the reads are ordered: one epoch will do
	default: // two unordered reads: keep them all
		c.rs = make(vclock, max(int(c.r.slot), int(ts.slot))+1)
		c.rs[c.r.slot], c.rs[ts.slot] = c.r.clock, e.clock
		c.rAtOf = map[int32]access{c.r.slot: c.rAt, ts.slot: at}
	}
	c.rAt = at
}

// at records the current access of t with its top frames.
func (d *Detector) at(t *vm.Thread, write bool) access {
	a := access{write: write, thread: t}
	for i := 0; i < len(a.stack) && i < t.Depth(); i++ {
		df := t.DebugFrame(i)
		a.stack[i] = frameAt{df.Func(), df.PC()}
	}
	return a
}

// report writes a race between the access of t now and prev, once per
// location name and pair of places.
func (d *Detector) report(t *vm.Thread, c *cell, write bool, prev access) {
	cur := d.at(t, write)
	where := locName(c.obj, c.i)
	places := []string{place(cur), place(prev)}
	slices.Sort(places)
	key := where + "\x00" + strings.Join(places, "\x00")
	if d.seen[key] {
		return
	}
	d.seen[key] = true
	var b strings.Builder
	b.WriteString("==================\nWARNING: DATA RACE\n")
	writeAccess(&b, "", cur, where)
	b.WriteString("\n")
	writeAccess(&b, "Previous ", prev, where)
	b.WriteString("==================\n")
	r := &Race{Where: where, Report: b.String(), Key: key}
	d.races = append(d.races, r)
	if d.out != nil {
		io.WriteString(d.out, r.Report)
	}
}

func writeAccess(b *strings.Builder, prefix string, a access, where string) {
	kind := "read"
	if a.write {
		kind = "write"
	}
	if prefix == "" {
		kind = strings.ToUpper(kind[:1]) + kind[1:]
	}
	fmt.Fprintf(b, "%s%s of %s by thread %d %q:\n", prefix, kind, where, a.thread.ID, a.thread.Name())
	for _, f := range a.stack {
		if f.fn == nil {
			break
		}
		line, _ := f.fn.Pos(f.pc)
		fmt.Fprintf(b, "  at %s (%s:%d)\n", f.fn.Name, baseName(f.fn.File), line)
	}
}

// place is the top frame of an access: "f (file:line)".
func place(a access) string {
	f := a.stack[0]
	if f.fn == nil {
		return "?"
	}
	line, _ := f.fn.Pos(f.pc)
	return fmt.Sprintf("%s (%s:%d)", f.fn.Name, baseName(f.fn.File), line)
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// locName names a location for the report.
func locName(obj any, i int64) string {
	switch o := obj.(type) {
	case *vm.Object:
		if o.Class != nil {
			for _, f := range o.Class.Fields {
				if int64(f.Index) == i {
					return o.Class.Name + "." + f.Name
				}
			}
			return o.Class.Name + " field"
		}
	case *vm.Array:
		return fmt.Sprintf("array element [%d]", i)
	case *vm.List:
		if i < 0 {
			return "List"
		}
		return fmt.Sprintf("List element [%d]", i)
	case *vm.Dict:
		return "Dict"
	}
	return "a location"
}

// Instrument patches every field, element and collection access of prog
// with a trap, for a Detector (sched.InstrumentAccesses). Call it once,
// before any machine runs the program; the program is then for detector
// runs only (its machines need the Detector as their hook).
func Instrument(prog *vm.Program) { sched.InstrumentAccesses(prog) }
