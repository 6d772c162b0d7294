import { useState } from 'preact/hooks';
import { ApiError } from '../../api';
import { Field, message, type Explained } from '../../ui';

/**
 * Recent proof of identity, which the API asks for before a sensitive change (removing an authenticator,
 * new recovery codes, a new e-mail address): the current password and, when the account has an
 * authenticator, a code (which is used up).
 */
export function useProof() {
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  return {
    password,
    setPassword,
    code,
    setCode,
    body: () => ({ current_password: password, ...(code.trim() ? { totp_code: code.replace(/\s+/g, '') } : {}) }),
    reset: () => {
      setPassword('');
      setCode('');
    },
  };
}

/** The API's words for a refused proof (all 401), and what to do about each. */
const REFUSED: Record<string, [field: 'current_password' | 'totp_code', advice: string]> = {
  'Current password required': ['current_password', 'Enter your current password.'],
  'Invalid password': ['current_password', 'That is not your current password.'],
  'TOTP code required': ['totp_code', 'Enter the code your authenticator app shows now, or a recovery code.'],
  'TOTP code required or invalid': [
    'totp_code',
    'That code was not accepted: enter the code your authenticator app shows now (each code works once), or an unused recovery code.',
  ],
};

/** A refusal of a form with proof fields: the proof's complaint under its field, the rest as a sentence. */
export function explainProof(err: unknown, shownFields: string[] = []): Explained {
  if (err instanceof ApiError && REFUSED[err.detail]) {
    const [field, advice] = REFUSED[err.detail];
    return { fields: { [field]: advice } };
  }
  return {
    fields: err instanceof ApiError ? err.fields : {},
    error: message(err, [...shownFields, 'current_password', 'totp_code']),
  };
}

/** The two fields, named uniquely per form (`prefix`), with their errors. */
export function ProofFields(props: {
  prefix: string;
  proof: ReturnType<typeof useProof>;
  withCode: boolean;
  fields: Record<string, string>;
}) {
  const { proof, prefix } = props;
  return (
    <>
      <Field
        label="Current password"
        name={`${prefix}-current-password`}
        type="password"
        autocomplete="current-password"
        required
        value={proof.password}
        onValue={proof.setPassword}
        error={props.fields.current_password}
      />
      {props.withCode && (
        <Field
          label="Authenticator or recovery code"
          name={`${prefix}-totp-code`}
          autocomplete="one-time-code"
          required
          value={proof.code}
          onValue={proof.setCode}
          error={props.fields.totp_code}
        />
      )}
    </>
  );
}
