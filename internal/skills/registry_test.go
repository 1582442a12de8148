package skills

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
)

func hydrated(t testing.TB) (*Registry, string) {
	t.Helper()
	root := fixtureRoot(t)
	r := New(testConfig(t, root))
	r.Hydrate()
	return r, root
}

func TestHydrate(t *testing.T) {
	r, root := hydrated(t)
	snap := r.Snapshot()
	var ids []string
	for _, in := range snap.Skills() {
		ids = append(ids, in.ID)
	}
	if !reflect.DeepEqual(ids, goodFixtures) {
		t.Errorf("ids %q", ids)
	}
	if snap.Version() != 1 {
		t.Errorf("version %d", snap.Version())
	}
	in, ok := snap.Get("pdf-forms")
	if !ok || in.Path != filepath.Join(root, "pdf-forms") || in.Root != root {
		t.Fatalf("get: %+v", in)
	}
	info, _ := json.Marshal(in.Info())
	want := `{"id":"pdf-forms","name":"pdf-forms","description":"Fills in PDF forms and extracts the values of their fields. Use when the user gives a PDF form to complete or asks what a filled form contains.",` +
		`"version":"0.3.1","category":"documents","tags":["pdf","forms","documents"],"tools":["pdf_fill_form","pdf_read_fields"],"author":"Docs Team",` +
		`"dependencies":["pypdf"],"permissions":["read_files","write_files"],"allowed_tools":[],"license":"MIT","compatibility":"",` +
		`"path":` + jsonString(filepath.Join(root, "pdf-forms")) + `,"root":` + jsonString(root) + `,` +
		`"files":["SKILL.md","assets/logo.png","assets/sample.pdf","references/fields.json","scripts/fill_form.py"]}`
	if string(info) != want {
		t.Errorf("info\n got  %s\n want %s", info, want)
	}
	summary, _ := json.Marshal(in.Summary())
	want = `{"id":"pdf-forms","name":"pdf-forms","description":"Fills in PDF forms and extracts the values of their fields. Use when the user gives a PDF form to complete or asks what a filled form contains.",` +
		`"version":"0.3.1","category":"documents","tags":["pdf","forms","documents"],"tools":["pdf_fill_form","pdf_read_fields"],` +
		`"path":` + jsonString(filepath.Join(root, "pdf-forms")) + `,"root":` + jsonString(root) + `}`
	if string(summary) != want {
		t.Errorf("summary\n got  %s\n want %s", summary, want)
	}
}

// Arguments named id match an id first, then a name.
func TestGetByIDThenName(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "alpha/SKILL.md"), skillMD("alpha", "d", "metadata:", "  vox-id: beta"))
	writeFile(t, filepath.Join(root, "beta/SKILL.md"), skillMD("gamma", "d"))
	r := New(testConfig(t, root))
	r.Hydrate()
	snap := r.Snapshot()
	// "beta" is both the id of alpha and the folder of gamma: the id wins.
	if in, _ := snap.Get("beta"); in == nil || in.Name != "alpha" {
		t.Errorf("beta -> %+v", in)
	}
	if in, _ := snap.Get("alpha"); in == nil || in.ID != "beta" {
		t.Errorf("alpha (a name) -> %+v", in)
	}
	if _, err := snap.Lookup("delta"); err == nil || err.Error() != `no installed skill "delta": vox_skill_list shows the installed skills` {
		t.Errorf("lookup: %v", err)
	}
}

func TestSearchRankingByHand(t *testing.T) {
	// Five skills built so that "deploy" reaches each through a different
	// field with the same weighted term frequency tf = 2:
	//   deploy-docs  id + name   1·1 + 1·1         |d| = 2 + 2 + 2·2 = 8
	//   misc         tags        2·1               |d| = 1 + 1 + 2·2 + 2·1 = 8
	//   notes        description 2·1               |d| = 1 + 1 + 2·2 = 6
	//   zeta         body        0.5·4             |d| = 1 + 1 + 2·2 + 0.5·4 = 8
	//   other        -                             |d| = 1 + 1 + 2·2 = 6
	// avgdl = 36/5 = 7.2, N = 5, df(deploy) = 4:
	//   IDF = ln(1 + (5 − 4 + 0.5)/(4 + 0.5)) = ln(4/3)
	//   |d| = 8: IDF · 2·2.2 / (2 + 1.2·(0.25 + 0.75·8/7.2)) = IDF · 4.4/3.3
	//   |d| = 6: IDF · 2·2.2 / (2 + 1.2·(0.25 + 0.75·6/7.2)) = IDF · 4.4/3.05
	// so notes (the shortest) leads, and the three at |d| = 8 tie and are
	// ordered by id.
	skills := []*Installed{
		synthetic("deploy-docs", "writes docs", nil, ""),
		synthetic("misc", "unrelated words", []string{"deploy"}, ""),
		synthetic("notes", "deploy notes", nil, ""),
		synthetic("zeta", "ships code", nil, "deploy deploy deploy deploy"),
		synthetic("other", "nothing here", nil, ""),
	}
	snap := newSnapshot(1, skills)
	idf := math.Log(4.0 / 3)
	long, short := idf*4.4/3.3, idf*4.4/3.05
	assertRanking(t, snap.Search("deploy", 0), []string{"notes", "deploy-docs", "misc", "zeta"}, []float64{short, long, long, long})

	// "deploy docs": docs occurs only in deploy-docs, in id, name and
	// description: tf = 1 + 1 + 2 = 4, df = 1, IDF = ln(1 + 4.5/1.5) = ln 4.
	docs := math.Log(4) * 4 * 2.2 / (4 + 1.2*(0.25+0.75*8/7.2))
	assertRanking(t, snap.Search("Deploy, DOCS!", 0), []string{"deploy-docs", "notes", "misc", "zeta"}, []float64{long + docs, short, long, long})

	// The limit keeps the best; unknown terms score nothing.
	assertRanking(t, snap.Search("deploy", 2), []string{"notes", "deploy-docs"}, []float64{short, long})
	if got := snap.Search("kubernetes", 0); len(got) != 0 {
		t.Errorf("unknown term: %v", got)
	}
}

func TestSearchFixtures(t *testing.T) {
	r, _ := hydrated(t)
	snap := r.Snapshot()
	// changelog-lint has "changelog" in id and name (1 + 1), three times in
	// its description (2·3) and in its tags (2): tf = 10. release-notes has
	// it once in its description and once in its tags: tf = 4. Their
	// lengths are close, so the order follows tf.
	assertRanking(t, snap.Search("changelog", 0), []string{"changelog-lint", "release-notes"}, nil)
	// Only pdf-forms speaks of PDF (id, name, description, tags, body).
	assertRanking(t, snap.Search("pdf", 0), []string{"pdf-forms"}, nil)
	res := snap.Search("pdf", 0)
	if res[0].Name != "pdf-forms" || res[0].Description == "" {
		t.Errorf("result %+v", res[0])
	}
	if got := snap.Search("", 0); len(got) != 0 {
		t.Errorf("empty query: %v", got)
	}
}

func assertRanking(t *testing.T, got []SearchResult, ids []string, scores []float64) {
	t.Helper()
	var gotIDs []string
	for _, r := range got {
		gotIDs = append(gotIDs, r.ID)
	}
	if !reflect.DeepEqual(gotIDs, ids) {
		t.Fatalf("ranking %q, want %q (%+v)", gotIDs, ids, got)
	}
	for i, want := range scores {
		if math.Abs(got[i].Score-want) > 1e-9 {
			t.Errorf("%s: score %.12f, want %.12f", ids[i], got[i].Score, want)
		}
	}
}

// synthetic is an installed skill that exists only in memory.
func synthetic(id, description string, tags []string, body string) *Installed {
	if tags == nil {
		tags = []string{}
	}
	return &Installed{Skill: &Skill{ID: id, Name: id, Description: description, Tags: tags, Body: body,
		Tools: []string{}, Version: DefaultVersion}, Path: "/mem/" + id, Root: "/mem"}
}

func TestOnChange(t *testing.T) {
	root := t.TempDir()
	r := New(testConfig(t, root))
	var seen []uint64
	var sizes []int
	r.OnChange(func(s *Snapshot) {
		seen = append(seen, s.Version())
		sizes = append(sizes, s.Len())
		if r.Snapshot() != s {
			t.Error("the listener must see the new snapshot as current")
		}
	})
	r.Hydrate()
	if _, _, err := r.Install([]byte(skillMD("one", "d")), nil, false); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Uninstall("one"); err != nil {
		t.Fatal(err)
	}
	r.Hydrate()
	if !reflect.DeepEqual(seen, []uint64{1, 2, 3, 4}) || !reflect.DeepEqual(sizes, []int{0, 1, 0, 1}) {
		t.Errorf("versions %v sizes %v", seen, sizes)
	}
}

// Many readers while a writer installs and uninstalls: run with -race.
func TestConcurrentReadsDuringChanges(t *testing.T) {
	r, _ := hydrated(t)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				snap := r.Snapshot()
				_ = snap.Search("release notes git", 5)
				if _, ok := snap.Get("pdf-forms"); !ok {
					t.Error("pdf-forms vanished")
					return
				}
				if _, err := snap.ReadResource("skill://pdf-forms/references/fields.json"); err != nil {
					t.Error(err)
					return
				}
				_, _ = snap.MacroTools(nil)
			}
		}()
	}
	for i := 0; i < 20; i++ {
		name := fmt.Sprintf("temp-%d", i)
		if _, _, err := r.Install([]byte(skillMD(name, "temporary")), map[string]string{"notes.txt": "n"}, false); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Uninstall(name); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
}
