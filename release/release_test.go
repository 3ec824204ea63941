package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestReleaseBuildSignVerify runs `make release` for this platform with a
// throwaway ed25519 key, verifies it with verify.sh as the README tells
// users to, runs the unpacked binary's `version`, and checks that a
// tampered tarball fails verification.
func TestReleaseBuildSignVerify(t *testing.T) {
	if testing.Short() {
		t.Skip("builds release binaries")
	}
	for _, tool := range []string{"git", "make", "ssh-keygen", "tar", "sha256sum", "gzip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	key := filepath.Join(tmp, "release_key")
	run(t, root, nil, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "release@gpuscheduler", "-f", key)
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	signers := filepath.Join(tmp, "allowed_signers")
	if err := os.WriteFile(signers, []byte("release@gpuscheduler "+string(pub)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "dist")
	start := time.Now()
	run(t, root, []string{"OUT=" + out, "RELEASE_PLATFORMS=host", "VERSION=v9.9.9-test", "GPUSCHED_SIGNING_KEY=" + key},
		"make", "--no-print-directory", "release")
	t.Logf("release for %s/%s built and signed in %s", runtime.GOOS, runtime.GOARCH, time.Since(start).Round(time.Millisecond))

	verify := filepath.Join(root, "release", "verify.sh")
	run(t, root, nil, verify, out, signers)

	plat := runtime.GOOS + "-" + runtime.GOARCH
	for _, name := range []string{"gpusched-agent-v9.9.9-test-" + plat} {
		if _, err := os.Stat(filepath.Join(out, name+".tar.gz")); err != nil {
			t.Errorf("missing %s.tar.gz: %v", name, err)
		}
	}
	if runtime.GOOS == "linux" {
		server := "gpusched-v9.9.9-test-" + plat
		run(t, tmp, nil, "tar", "-xzf", filepath.Join(out, server+".tar.gz"))
		// The CLI, and the server binary beside it (which the CLI's server
		// commands run), both stamped; the server says whether NVML is in.
		for bin, wants := range map[string][]string{
			"gpusched":        {"gpusched v9.9.9-test", "commit: ", "go: go1."},
			"gpusched-server": {"gpusched v9.9.9-test", "commit: ", "go: go1.", "nvml: "},
		} {
			got := run(t, tmp, nil, filepath.Join(tmp, server, bin), "version")
			for _, want := range wants {
				if !strings.Contains(got, want) {
					t.Errorf("%s version = %q, want it to contain %q", bin, got, want)
				}
			}
			if strings.Contains(got, "commit: unknown") || strings.Contains(got, "built: unknown") {
				t.Errorf("%s version lacks build facts: %q", bin, got)
			}
		}
		if got := run(t, tmp, nil, filepath.Join(tmp, server, "gpusched"), "sim", "--help"); !strings.Contains(got, "--trace") {
			t.Errorf("gpusched sim --help did not reach gpusched-server: %q", got)
		}
	}

	// Tamper with one tarball: the checksum check must fail.
	tarballs, _ := filepath.Glob(filepath.Join(out, "*.tar.gz"))
	if len(tarballs) == 0 {
		t.Fatal("no tarballs")
	}
	f, err := os.OpenFile(tarballs[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.Write([]byte{0})
	_ = f.Close()
	if b, err := exec.Command(verify, out, signers).CombinedOutput(); err == nil {
		t.Errorf("verify.sh accepted a tampered tarball:\n%s", b)
	}
	// A signature by another key must fail too.
	other := filepath.Join(tmp, "other_signers")
	run(t, root, nil, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(tmp, "other"))
	otherPub, _ := os.ReadFile(filepath.Join(tmp, "other.pub"))
	_ = os.WriteFile(other, []byte("release@gpuscheduler "+string(otherPub)), 0o644)
	if b, err := exec.Command(verify, out, other).CombinedOutput(); err == nil {
		t.Errorf("verify.sh accepted a signature by a key not in allowed_signers:\n%s", b)
	}
}

// run runs a command in dir with extra environment and returns its output,
// failing the test when it fails.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, b)
	}
	return string(b)
}
