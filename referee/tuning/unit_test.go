package tuning

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const unitPath = "../../docs/install/liarsd.service"

// unitEnvironment returns the unit's Environment= settings.
func unitEnvironment(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(unitPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Environment="); ok {
			k, v, _ := strings.Cut(v, "=")
			env[k] = v
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return env
}

// The systemd unit sets the same memory and thread defaults as the binary.
func TestUnitEnvironmentMatchesDefaults(t *testing.T) {
	env := unitEnvironment(t)
	for _, k := range knobs {
		got, ok := env[k.env[0]]
		if !ok {
			t.Errorf("the unit has no Environment=%s=%d", k.env[0], k.value)
			continue
		}
		if got != strconv.Itoa(k.value) {
			t.Errorf("the unit's %s: got %s; want %d (tuning's default)", k.env[0], got, k.value)
		}
	}
}

// The unit passes systemd-analyze verify, and its exposure stays at 2.0
// or below (it was 8.2 before the hardening; 1.6 now).
func TestUnitVerifiesAndIsHardened(t *testing.T) {
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Skip("no systemd-analyze on this machine")
	}
	b, err := os.ReadFile(unitPath)
	if err != nil {
		t.Fatal(err)
	}
	// verify wants ExecStart's binary to exist: this test's stands in.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	unit := filepath.Join(t.TempDir(), "liarsd.service")
	if err := os.WriteFile(unit, []byte(strings.ReplaceAll(string(b), "/usr/local/bin/liarsd", self)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("systemd-analyze", "verify", unit).CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
	out, err := exec.Command("systemd-analyze", "security", "--offline=yes", "--threshold=20", unit).CombinedOutput()
	if err != nil {
		t.Errorf("systemd-analyze security --threshold=20 (2.0): %v\n%s", err, out)
	}
}
