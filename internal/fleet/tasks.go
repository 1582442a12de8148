package fleet

import (
	"strings"
	"time"

	"github.com/vox-lang/vox-mcp/internal/tasks"
)

// Tasks is the durable task store of fleet mode (docs/tasks.md, "In the
// store"): the tasks in this store's Redis, through its client, under its
// prefix, so that any instance answers tasks/get and tasks/result and an
// instance that dies is found by its lease. lease 0 means
// tasks.DefaultLease.
func (s *Store) Tasks(lease time.Duration) *tasks.Redis {
	return tasks.NewRedis(s.rdb, strings.TrimSuffix(s.epochKey, ":epoch"), lease)
}
