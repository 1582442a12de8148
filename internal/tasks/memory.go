package tasks

import (
	"context"
	"slices"
	"sync"
	"time"
)

// MaxMemoryTasks bounds the tasks a Memory store holds, all principals
// together.
const MaxMemoryTasks = 10000

// Memory is the Store of one process: stdio, and HTTP without --store.
type Memory struct {
	instance string
	lease    time.Duration
	now      func() time.Time

	mu         sync.Mutex
	tasks      map[string]*memEntry
	leaseUntil time.Time
}

type memEntry struct {
	task   Task
	result []byte
}

// NewMemory returns an empty store whose lease lasts lease (0:
// DefaultLease). now is the clock (nil: time.Now).
func NewMemory(lease time.Duration, now func() time.Time) *Memory {
	if lease <= 0 {
		lease = DefaultLease
	}
	if now == nil {
		now = time.Now
	}
	m := &Memory{instance: newID(), lease: lease, now: now, tasks: map[string]*memEntry{}}
	m.leaseUntil = now().Add(lease)
	return m
}

// Instance implements Store.
func (m *Memory) Instance() string { return m.instance }

// Lease implements Store.
func (m *Memory) Lease() time.Duration { return m.lease }

// Create implements Store.
func (m *Memory) Create(_ context.Context, t Task) (Task, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for id, e := range m.tasks {
		if !now.Before(e.task.Expires()) {
			delete(m.tasks, id)
			continue
		}
		if e.task.Principal == t.Principal {
			n++
		}
	}
	if n >= MaxPerPrincipal || len(m.tasks) >= MaxMemoryTasks {
		return Task{}, ErrFull
	}
	t.ID, t.Owner, t.Status, t.Message = newID(), m.instance, Working, ""
	t.Created, t.Updated, t.TTL = now, now, clampTTL(t.TTL)
	m.tasks[t.ID] = &memEntry{task: t}
	m.leaseUntil = now.Add(m.lease)
	return t, nil
}

// entry returns principal's live task id ("" principal: any), failing
// it when the lease lapsed; m.mu is held.
func (m *Memory) entry(principal, id string, now time.Time) (*memEntry, error) {
	e, ok := m.tasks[id]
	if !ok || (principal != "" && e.task.Principal != principal) {
		return nil, ErrNotFound
	}
	if !now.Before(e.task.Expires()) {
		delete(m.tasks, id)
		return nil, ErrNotFound
	}
	if e.task.running() && !now.Before(m.leaseUntil) {
		e.task.Status, e.task.Message, e.task.Updated = Failed, leaseLapsed, now
	}
	return e, nil
}

// Get implements Store.
func (m *Memory) Get(_ context.Context, principal, id string) (Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.entry(principal, id, m.now())
	if err != nil {
		return Task{}, err
	}
	return e.task, nil
}

// List implements Store.
func (m *Memory) List(_ context.Context, principal string) ([]Task, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Task
	for id, e := range m.tasks {
		if e.task.Principal != principal {
			continue
		}
		if e, err := m.entry(principal, id, now); err == nil {
			out = append(out, e.task)
		}
	}
	sortTasks(out)
	return out, nil
}

// sortTasks orders tasks oldest first, ties by id.
func sortTasks(ts []Task) {
	slices.SortFunc(ts, func(a, b Task) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		if a.ID < b.ID {
			return -1
		}
		return 1
	})
}

// Result implements Store.
func (m *Memory) Result(_ context.Context, principal, id string) (Task, []byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.entry(principal, id, m.now())
	if err != nil {
		return Task{}, nil, err
	}
	return e.task, e.result, nil
}

// Finish implements Store.
func (m *Memory) Finish(_ context.Context, id string, status Status, message string, result []byte) (Task, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.entry("", id, now)
	if err != nil {
		return Task{}, err
	}
	if e.task.Status.Terminal() {
		return e.task, ErrTerminal
	}
	if len(result) > MaxResultBytes {
		status, message, result = Failed, resultTooLarge(len(result)), nil
	}
	e.task.Status, e.task.Message, e.task.Input, e.task.Updated = status, message, "", now
	e.result = slices.Clone(result)
	return e.task, nil
}

// Cancel implements Store.
func (m *Memory) Cancel(_ context.Context, principal, id, message string) (Task, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.entry(principal, id, now)
	if err != nil {
		return Task{}, err
	}
	if e.task.Status.Terminal() {
		return e.task, ErrTerminal
	}
	e.task.Status, e.task.Message, e.task.Input, e.task.Updated = Cancelled, message, "", now
	return e.task, nil
}

// Renew implements Store.
func (m *Memory) Renew(_ context.Context, running []string) ([]string, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	var stopped []string
	for _, id := range running {
		if e, ok := m.tasks[id]; !ok || (e.task.Status != Working && e.task.Status != InputRequired) || !now.Before(e.task.Expires()) {
			stopped = append(stopped, id)
		}
	}
	m.leaseUntil = now.Add(m.lease)
	return stopped, nil
}

// Ask implements Store.
func (m *Memory) Ask(_ context.Context, id, message string, input []byte) (Task, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.entry("", id, now)
	if err != nil {
		return Task{}, err
	}
	if e.task.Status != Working {
		return e.task, ErrTerminal
	}
	e.task.Status, e.task.Message, e.task.Input, e.task.Updated = InputRequired, message, string(input), now
	return e.task, nil
}

// Resume implements Store.
func (m *Memory) Resume(_ context.Context, principal, id string) (Task, []byte, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.entry(principal, id, now)
	switch {
	case err != nil:
		return Task{}, nil, err
	case e.task.Status.Terminal():
		return e.task, nil, ErrTerminal
	case e.task.Status != InputRequired:
		return e.task, nil, ErrNotAsking
	}
	input := []byte(e.task.Input)
	e.task.Status, e.task.Message, e.task.Input, e.task.Owner, e.task.Updated = Working, "", "", m.instance, now
	m.leaseUntil = now.Add(m.lease)
	return e.task, input, nil
}
