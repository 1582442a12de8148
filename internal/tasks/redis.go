package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is the Store of a fleet: the Redis (or Valkey) of fleet mode,
// through the fleet's own client (docs/tasks.md, "In the store"). Every
// operation is one Lua script, so that the lease check and the change it
// makes are one step. The scripts reach keys they compute (a task's
// owner's lease), so the store must be one Redis, not a Redis Cluster —
// as fleet mode's already is.
type Redis struct {
	rdb      redis.UniversalClient
	prefix   string
	instance string
	lease    time.Duration
	now      func() time.Time
}

// NewRedis returns the store of one instance over rdb, its keys under
// prefix (fleet mode's, "vox-mcp"); lease 0 means DefaultLease.
func NewRedis(rdb redis.UniversalClient, prefix string, lease time.Duration) *Redis {
	if lease <= 0 {
		lease = DefaultLease
	}
	return &Redis{rdb: rdb, prefix: prefix, instance: newID(), lease: lease, now: time.Now}
}

// Instance implements Store.
func (r *Redis) Instance() string { return r.instance }

// Lease implements Store.
func (r *Redis) Lease() time.Duration { return r.lease }

func (r *Redis) taskKey(id string) string         { return r.prefix + ":task:" + id }
func (r *Redis) indexKey(principal string) string { return r.prefix + ":tasks:" + principal }
func (r *Redis) leasePrefix() string              { return r.prefix + ":tasks:lease:" }

// record is a task as the store holds it: times in Unix milliseconds, so
// that the scripts can compare and write them.
type record struct {
	ID        string `json:"id"`
	Principal string `json:"p"`
	Tool      string `json:"tool"`
	Status    Status `json:"s"`
	Message   string `json:"m"`
	Created   int64  `json:"c"`
	Updated   int64  `json:"u"`
	TTL       int64  `json:"ttl"`
	Owner     string `json:"o"`
	Input     string `json:"i,omitempty"`
}

func toRecord(t Task) record {
	return record{t.ID, t.Principal, t.Tool, t.Status, t.Message, t.Created.UnixMilli(), t.Updated.UnixMilli(), t.TTL.Milliseconds(), t.Owner, t.Input}
}

func (rec record) task() Task {
	return Task{ID: rec.ID, Principal: rec.Principal, Tool: rec.Tool, Status: rec.Status, Message: rec.Message,
		Created: time.UnixMilli(rec.Created), Updated: time.UnixMilli(rec.Updated), TTL: time.Duration(rec.TTL) * time.Millisecond, Owner: rec.Owner, Input: rec.Input}
}

func decodeRecord(s string) (Task, error) {
	var rec record
	if err := json.Unmarshal([]byte(s), &rec); err != nil {
		return Task{}, fmt.Errorf("a task in the store does not decode (%v): it was written by another version", err)
	}
	return rec.task(), nil
}

// luaLoad is the Lua function the scripts share: the task of hash key k
// for principal p ("" any) at time now (ms), failed first when it is
// running — working, or input_required with a request of its call
// outstanding (no round kept) — and its owner's lease (key lp..owner) is
// gone; nil when absent or another principal's.
const luaLoad = `
local function load(k, p, now, lp, lapsed)
  local raw = redis.call('HGET', k, 't')
  if not raw then return nil end
  local t = cjson.decode(raw)
  if p ~= '' and t.p ~= p then return nil end
  if (t.s == 'working' or (t.s == 'input_required' and (t.i or '') == '')) and redis.call('EXISTS', lp .. t.o) == 0 then
    t.s = 'failed'; t.m = lapsed; t.u = now
    raw = cjson.encode(t)
    redis.call('HSET', k, 't', raw)
  end
  return t, raw
end
`

// createScript: KEYS task, index, lease; ARGV record, expiry (ms), id,
// now, max per principal, lease (ms), index lifetime (ms).
var createScript = redis.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[4])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return 'full' end
redis.call('HSET', KEYS[1], 't', ARGV[1])
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
redis.call('SET', KEYS[3], '1', 'PX', ARGV[6])
return 'ok'
`)

// getScript: KEYS task; ARGV principal, now, lease prefix, lapsed
// message, "r" to return the result too.
var getScript = redis.NewScript(luaLoad + `
local t, raw = load(KEYS[1], ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4])
if not t then return nil end
if ARGV[5] == 'r' then return {raw, redis.call('HGET', KEYS[1], 'r') or false} end
return {raw}
`)

// listScript: KEYS index; ARGV principal, now, lease prefix, lapsed
// message, task key prefix.
var listScript = redis.NewScript(luaLoad + `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local t, raw = load(ARGV[5] .. id, ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4])
  if t then table.insert(out, raw) end
end
return out
`)

// endScript: KEYS task; ARGV principal, now, lease prefix, lapsed
// message, status, message, result ("" none), "set result" flag. It
// answers {"none"}, {"terminal", raw} or {"ok", raw}.
var endScript = redis.NewScript(luaLoad + `
local t, raw = load(KEYS[1], ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4])
if not t then return {'none'} end
if t.s ~= 'working' and t.s ~= 'input_required' then return {'terminal', raw} end
t.s = ARGV[5]; t.m = ARGV[6]; t.u = tonumber(ARGV[2]); t.i = nil
raw = cjson.encode(t)
redis.call('HSET', KEYS[1], 't', raw)
if ARGV[8] == '1' then redis.call('HSET', KEYS[1], 'r', ARGV[7]) end
return {'ok', raw}
`)

// askScript: KEYS task; ARGV now, lease prefix, lapsed message,
// message, input. It answers {"none"}, {"terminal", raw} or {"ok", raw}.
var askScript = redis.NewScript(luaLoad + `
local t, raw = load(KEYS[1], '', tonumber(ARGV[1]), ARGV[2], ARGV[3])
if not t then return {'none'} end
if t.s ~= 'working' then return {'terminal', raw} end
t.s = 'input_required'; t.m = ARGV[4]; t.u = tonumber(ARGV[1])
if ARGV[5] ~= '' then t.i = ARGV[5] else t.i = nil end
raw = cjson.encode(t)
redis.call('HSET', KEYS[1], 't', raw)
return {'ok', raw}
`)

// resumeScript: KEYS task, this instance's lease; ARGV principal, now,
// lease prefix, lapsed message, instance, lease (ms). It answers
// {"none"}, {"state", raw} (not input_required) or {"ok", raw, input}.
var resumeScript = redis.NewScript(luaLoad + `
local t, raw = load(KEYS[1], ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4])
if not t then return {'none'} end
if t.s ~= 'input_required' then return {'state', raw} end
local input = t.i or ''
t.s = 'working'; t.m = ''; t.i = nil; t.o = ARGV[5]; t.u = tonumber(ARGV[2])
raw = cjson.encode(t)
redis.call('HSET', KEYS[1], 't', raw)
redis.call('SET', KEYS[2], '1', 'PX', ARGV[6])
return {'ok', raw, input}
`)

// renewScript: KEYS lease; ARGV lease (ms), task key prefix, ids... It
// answers the ids that are no longer running (working, or input_required
// while their call waits for the client).
var renewScript = redis.NewScript(`
redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
local out = {}
for i = 3, #ARGV do
  local raw = redis.call('HGET', ARGV[2] .. ARGV[i], 't')
  local t = raw and cjson.decode(raw)
  if not t or (t.s ~= 'working' and t.s ~= 'input_required') then table.insert(out, ARGV[i]) end
end
return out
`)

// unreachable wraps an error of the store.
func unreachable(err error) error {
	return fmt.Errorf("the task store cannot be reached (%v): try again", err)
}

// Create implements Store.
func (r *Redis) Create(ctx context.Context, t Task) (Task, error) {
	now := r.now()
	t.ID, t.Owner, t.Status, t.Message = newID(), r.instance, Working, ""
	t.Created, t.Updated, t.TTL = now, now, clampTTL(t.TTL)
	raw, _ := json.Marshal(toRecord(t))
	res, err := createScript.Run(ctx, r.rdb, []string{r.taskKey(t.ID), r.indexKey(t.Principal), r.leasePrefix() + r.instance},
		string(raw), t.Expires().UnixMilli(), t.ID, now.UnixMilli(), MaxPerPrincipal, r.lease.Milliseconds(), MaxTTL.Milliseconds()).Text()
	if err != nil {
		return Task{}, unreachable(err)
	}
	if res == "full" {
		return Task{}, ErrFull
	}
	return t, nil
}

func (r *Redis) get(ctx context.Context, principal, id string, withResult bool) (Task, []byte, error) {
	flag := ""
	if withResult {
		flag = "r"
	}
	v, err := getScript.Run(ctx, r.rdb, []string{r.taskKey(id)}, principal, r.now().UnixMilli(), r.leasePrefix(), leaseLapsed, flag).Slice()
	switch {
	case errors.Is(err, redis.Nil):
		return Task{}, nil, ErrNotFound
	case err != nil:
		return Task{}, nil, unreachable(err)
	}
	t, err := decodeRecord(v[0].(string))
	if err != nil {
		return Task{}, nil, err
	}
	var result []byte
	if len(v) > 1 {
		if s, ok := v[1].(string); ok {
			result = []byte(s)
		}
	}
	return t, result, nil
}

// Get implements Store.
func (r *Redis) Get(ctx context.Context, principal, id string) (Task, error) {
	t, _, err := r.get(ctx, principal, id, false)
	return t, err
}

// Result implements Store.
func (r *Redis) Result(ctx context.Context, principal, id string) (Task, []byte, error) {
	return r.get(ctx, principal, id, true)
}

// List implements Store.
func (r *Redis) List(ctx context.Context, principal string) ([]Task, error) {
	v, err := listScript.Run(ctx, r.rdb, []string{r.indexKey(principal)}, principal, r.now().UnixMilli(), r.leasePrefix(), leaseLapsed, r.prefix+":task:").StringSlice()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, unreachable(err)
	}
	out := make([]Task, 0, len(v))
	for _, raw := range v {
		t, err := decodeRecord(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	sortTasks(out)
	return out, nil
}

func (r *Redis) end(ctx context.Context, principal, id string, status Status, message string, result []byte, setResult bool) (Task, error) {
	flag := "0"
	if setResult {
		flag = "1"
	}
	return changed(endScript.Run(ctx, r.rdb, []string{r.taskKey(id)}, principal, r.now().UnixMilli(), r.leasePrefix(), leaseLapsed,
		string(status), message, string(result), flag).StringSlice())
}

// changed reads the answer of a script that changes a task (endScript,
// askScript): {"none"}, {"terminal", raw} or {"ok", raw}.
func changed(v []string, err error) (Task, error) {
	if err != nil {
		return Task{}, unreachable(err)
	}
	if v[0] == "none" {
		return Task{}, ErrNotFound
	}
	t, derr := decodeRecord(v[1])
	if derr != nil {
		return Task{}, derr
	}
	if v[0] == "terminal" {
		return t, ErrTerminal
	}
	return t, nil
}

// Finish implements Store.
func (r *Redis) Finish(ctx context.Context, id string, status Status, message string, result []byte) (Task, error) {
	if len(result) > MaxResultBytes {
		status, message, result = Failed, resultTooLarge(len(result)), nil
	}
	return r.end(ctx, "", id, status, message, result, result != nil)
}

// Cancel implements Store.
func (r *Redis) Cancel(ctx context.Context, principal, id, message string) (Task, error) {
	return r.end(ctx, principal, id, Cancelled, message, nil, false)
}

// Renew implements Store.
func (r *Redis) Renew(ctx context.Context, running []string) ([]string, error) {
	args := []any{r.lease.Milliseconds(), r.prefix + ":task:"}
	for _, id := range running {
		args = append(args, id)
	}
	stopped, err := renewScript.Run(ctx, r.rdb, []string{r.leasePrefix() + r.instance}, args...).StringSlice()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, unreachable(err)
	}
	return stopped, nil
}

// Ask implements Store.
func (r *Redis) Ask(ctx context.Context, id, message string, input []byte) (Task, error) {
	return changed(askScript.Run(ctx, r.rdb, []string{r.taskKey(id)}, r.now().UnixMilli(), r.leasePrefix(), leaseLapsed, message, string(input)).StringSlice())
}

// Resume implements Store.
func (r *Redis) Resume(ctx context.Context, principal, id string) (Task, []byte, error) {
	v, err := resumeScript.Run(ctx, r.rdb, []string{r.taskKey(id), r.leasePrefix() + r.instance},
		principal, r.now().UnixMilli(), r.leasePrefix(), leaseLapsed, r.instance, r.lease.Milliseconds()).StringSlice()
	if err != nil {
		return Task{}, nil, unreachable(err)
	}
	if v[0] == "none" {
		return Task{}, nil, ErrNotFound
	}
	t, derr := decodeRecord(v[1])
	switch {
	case derr != nil:
		return Task{}, nil, derr
	case v[0] == "state" && t.Status.Terminal():
		return t, nil, ErrTerminal
	case v[0] == "state":
		return t, nil, ErrNotAsking
	}
	return t, []byte(v[2]), nil
}
