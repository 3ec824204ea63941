package web_test

import (
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// While nobody is admin, the sign-in page says that the first person to
// sign in becomes one; once someone is, it says nothing of it, and the
// first person did become the admin.
func TestSignInPageSaysWhoBecomesAdmin(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	const line = "the first person to sign in becomes the admin"
	if page := getPage(t, s.Client(), s.URL+"/login"); !strings.Contains(page, line) {
		t.Fatalf("with no admin yet the sign-in page should say %q", line)
	}
	s.Login(t, "first@example.com")
	first, err := models.GetUserByEmail(t.Context(), s.DB.Bun, "first@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if !first.IsAdmin() {
		t.Errorf("the first person to sign in is %s, want admin", first.Role)
	}
	testdb.User(t, s.DB, models.RoleMember)
	if page := getPage(t, s.Client(), s.URL+"/login"); strings.Contains(page, line) {
		t.Errorf("with an admin the sign-in page still says %q", line)
	}
}
