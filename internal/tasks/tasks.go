// Package tasks keeps the durable tasks of MCP (docs/tasks.md): a
// task-augmented tools/call becomes a Task owned by one principal, run by
// one instance, polled with tasks/get, listed with tasks/list, cancelled
// with tasks/cancel and answered with tasks/result — by any instance
// sharing the store.
//
// A Store is the interface; Memory keeps the tasks of one process and
// Redis those of a fleet (the Redis of fleet mode, docs/federation.md §8).
// Both keep the same rules:
//
//   - a task belongs to the principal that created it; every read names
//     the principal, and another principal's task is not found (never
//     "forbidden": its existence is not disclosed);
//   - a task and its result are deleted TTL after the task was created
//     (the client's params.task.ttl, clamped to [MinTTL, MaxTTL];
//     DefaultTTL without one);
//   - the instance running a task holds a lease (Renew, every Lease/3); a
//     task still working whose instance's lease lapsed is found failed by
//     the next read, so a task is never left working forever by an
//     instance that died;
//   - a terminal status (completed, failed, cancelled) is final: a cancel
//     after the end is refused (ErrTerminal) and the end of a cancelled
//     task changes nothing.
package tasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"time"
)

// Status is a task's status, as MCP names it.
type Status string

// The statuses of protocol 2025-11-25. InputRequired is a task whose call
// asked its client: under 2026-07-28 it waits for tasks/update with its
// round kept (docs/tasks.md §5), and no instance runs it meanwhile, so no
// lease fails it; before, its call waits for the client's answer on the
// instance running it (Ask with no input, Resume).
const (
	Working       Status = "working"
	InputRequired Status = "input_required"
	Completed     Status = "completed"
	Failed        Status = "failed"
	Cancelled     Status = "cancelled"
)

// Terminal reports whether s is final.
func (s Status) Terminal() bool { return s == Completed || s == Failed || s == Cancelled }

// Bounds and defaults of a store (docs/tasks.md, "Expiry and bounds").
const (
	// DefaultTTL is how long a task and its result are kept after its
	// creation when the client asks for no ttl.
	DefaultTTL = time.Hour
	// MinTTL and MaxTTL clamp the ttl a client asks for: a result must
	// outlive a poll or two, and no client keeps state here for more
	// than a day.
	MinTTL = 10 * time.Second
	MaxTTL = 24 * time.Hour
	// DefaultLease is how long an instance's lease lasts without a
	// renewal; Renew is called every third of it.
	DefaultLease = 15 * time.Second
	// MaxPerPrincipal bounds the live tasks of one principal.
	MaxPerPrincipal = 1000
	// MaxResultBytes bounds a stored result; a larger one fails its task.
	MaxResultBytes = 8 << 20
)

// Errors of a store.
var (
	// ErrNotFound: no such task for this principal (expired, never
	// created, or another principal's).
	ErrNotFound = errors.New("no such task")
	// ErrTerminal: the task has ended already.
	ErrTerminal = errors.New("the task has ended already")
	// ErrFull: the principal holds MaxPerPrincipal live tasks.
	ErrFull = errors.New("too many live tasks")
	// ErrNotAsking: the task is not input_required.
	ErrNotAsking = errors.New("the task asks for no input")
)

// Task is one task.
type Task struct {
	ID        string        `json:"id"`
	Principal string        `json:"p"`
	Tool      string        `json:"tool"`
	Status    Status        `json:"s"`
	Message   string        `json:"m,omitempty"`
	Created   time.Time     `json:"c"`
	Updated   time.Time     `json:"u"`
	TTL       time.Duration `json:"ttl"`
	// Owner is the instance running the task (its store's Instance).
	Owner string `json:"o"`
	// Input is what an input_required task waits with (Ask): the
	// server's own record of the round, given back by Resume.
	Input string `json:"i,omitempty"`
}

// running reports whether an instance runs t: working, or input_required
// while its call waits for the client (no round kept: protocol
// 2025-11-25). Only such a task fails when its instance's lease lapses.
func (t Task) running() bool {
	return t.Status == Working || (t.Status == InputRequired && t.Input == "")
}

// Expires is when the task and its result are deleted.
func (t Task) Expires() time.Time { return t.Created.Add(t.TTL) }

// Store keeps tasks. Every method is safe for concurrent use.
type Store interface {
	// Instance is the id of this instance: the Owner of the tasks it
	// creates, whose lease it renews.
	Instance() string
	// Create records t as working, owned by this instance; it sets ID,
	// Owner, Status, Created and Updated, and clamps TTL.
	Create(ctx context.Context, t Task) (Task, error)
	// Get returns principal's task id, failing it first when its
	// instance's lease lapsed.
	Get(ctx context.Context, principal, id string) (Task, error)
	// List returns principal's live tasks, oldest first.
	List(ctx context.Context, principal string) ([]Task, error)
	// Result returns principal's task id and, once it is terminal, its
	// result (nil for a task cancelled or failed without one).
	Result(ctx context.Context, principal, id string) (Task, []byte, error)
	// Finish ends task id with status, message and result, unless it has
	// ended already (ErrTerminal: cancelled meanwhile).
	Finish(ctx context.Context, id string, status Status, message string, result []byte) (Task, error)
	// Cancel ends principal's task id as cancelled (ErrTerminal when it
	// has ended); the instance running it sees that at its next Renew.
	Cancel(ctx context.Context, principal, id, message string) (Task, error)
	// Ask turns the working task id input_required with message, keeping
	// input for Resume (ErrTerminal when it has ended: cancelled
	// meanwhile). With input the instance that ran it stops tracking it;
	// without, its call waits for the client, and its lease still holds.
	Ask(ctx context.Context, id, message string, input []byte) (Task, error)
	// Resume turns principal's input_required task id working again, run
	// by this instance, and returns the input Ask kept; ErrNotAsking when
	// it is working, ErrTerminal when it has ended. Of two Resumes of one
	// round, one succeeds.
	Resume(ctx context.Context, principal, id string) (Task, []byte, error)
	// Renew extends this instance's lease and returns which of running
	// (ids of tasks this instance runs) are no longer working — cancelled
	// elsewhere, or expired — so that it stops them.
	Renew(ctx context.Context, running []string) ([]string, error)
	// Lease is how long a lease lasts without a renewal.
	Lease() time.Duration
}

// clampTTL is the ttl a task is kept for.
func clampTTL(ttl time.Duration) time.Duration {
	switch {
	case ttl <= 0:
		return DefaultTTL
	case ttl < MinTTL:
		return MinTTL
	case ttl > MaxTTL:
		return MaxTTL
	}
	return ttl
}

// newID is a task id: 128 random bits, so that an id cannot be guessed.
func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// leaseLapsed is the message of a task whose instance stopped.
const leaseLapsed = "the instance running this task stopped before it ended (its lease lapsed): call the tool again"

// resultTooLarge is the message of a task whose result was over
// MaxResultBytes.
func resultTooLarge(n int) string {
	return "the result has " + itoa(n) + " bytes, over the " + itoa(MaxResultBytes) + " a task keeps: call the tool without a task, or ask it for less"
}

func itoa(n int) string { return strconv.Itoa(n) }
