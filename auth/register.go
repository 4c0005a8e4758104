package auth

import (
	"context"
	"errors"
)

// STUB: owned by the discovery helper; replaced wholesale.

// ClientConfig is what the user says about the client: pre-registered
// credentials, a Client ID Metadata Document URL, and what dynamic
// registration should ask for.
type ClientConfig struct {
	// ClientID and ClientSecret are a pre-registered client (--client-id,
	// --client-secret). ClientSecret may be empty (a public client).
	ClientID     string
	ClientSecret string
	// ClientKey is a PEM private key for private_key_jwt (--client-key);
	// KeyID is its kid, if the server wants one.
	ClientKey []byte
	KeyID     string
	// ClientMetadataURL is an HTTPS URL serving a Client ID Metadata
	// Document (--client-metadata-url); used as client_id when the
	// authorization server advertises client_id_metadata_document_supported.
	ClientMetadataURL string
	// ClientName is client_name for dynamic registration ("mcpctl").
	ClientName string
	// RedirectURIs are the loopback redirect URIs to register.
	RedirectURIs []string
	// GrantTypes to register (default authorization_code, refresh_token).
	GrantTypes []string
	// Scope to register, space-separated (may be empty).
	Scope string
}

// Register identifies the client to the authorization server asm, in the
// spec's order: a pre-registered client (cc.ClientID), a Client ID
// Metadata Document (cc.ClientMetadataURL, when asm supports it), Dynamic
// Client Registration (RFC 7591, when asm has a registration endpoint).
// The token endpoint authentication method is chosen from what asm
// supports and what the client has (secret, key). An error says what the
// user can pass instead (--client-id) when none of the three is possible.
func (f *Fetcher) Register(ctx context.Context, asm *ServerMetadata, cc ClientConfig) (*Registration, error) {
	return nil, errors.New("not implemented")
}
