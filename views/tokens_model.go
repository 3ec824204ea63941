package views

// Tokens is the API tokens page.
type Tokens struct {
	List    []TokenRow
	Created string // the plain token just created, shown once
	Error   string
}

// TokenRow is one token in the list.
type TokenRow struct {
	Name, Prefix, Created, LastUsed string
}
