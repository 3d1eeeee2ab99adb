/**
 * Finding a secret in captured output in any of the forms it could take on the way out: as it is, URL-encoded
 * (a query, a redirect), base64 and base64url (a Basic header, a data: URL, a base64 file read), and as JSON
 * would escape it. For the leak tests that grep everything a daemon said.
 */

/** The forms `secret` may appear in: raw, encodeURIComponent, URLSearchParams' `+`, JSON-escaped, base64(url). */
export function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms = [
    secret,
    encodeURIComponent(secret),
    new URLSearchParams({ s: secret }).toString().slice(2),
    JSON.stringify(secret).slice(1, -1),
    bytes.toString('base64').replace(/=+$/, ''),
    bytes.toString('base64url'),
  ];
  // Inside a longer base64 text (a Basic header encodes `user:secret`) the secret starts at one of three byte
  // alignments, and only the characters of whole 3-byte groups of its own are fixed: for each alignment, the
  // base64 with the groups it shares with its neighbours (the first, when shifted, and the last) dropped.
  for (const shift of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(shift, 'x'), bytes]).toString('base64');
    const middle = encoded.slice(shift === 0 ? 0 : 4, -4);
    forms.push(middle, middle.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return [...new Set(forms.filter((form) => form.length >= 8))];
}

export interface SecretHit {
  secret: string;
  form: string;
  where: string;
  /** Up to 60 characters either side of the hit. */
  context: string;
}

/** Every place one of the `secrets` appears, in any form, in the labelled `texts`. */
export function findSecrets(secrets: Record<string, string>, texts: { where: string; text: string }[]): SecretHit[] {
  const hits: SecretHit[] = [];
  for (const [name, secret] of Object.entries(secrets)) {
    for (const form of secretForms(secret)) {
      for (const { where, text } of texts) {
        let at = text.indexOf(form);
        while (at !== -1) {
          hits.push({ secret: name, form, where, context: text.slice(Math.max(0, at - 60), at + form.length + 60) });
          at = text.indexOf(form, at + 1);
        }
      }
    }
  }
  return hits;
}
