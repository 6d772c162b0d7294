import { useState } from 'preact/hooks';
import { api, ok, type SignInSession } from '../../api';
import { Alert, ConfirmButton, Loaded, message, useLoad } from '../../ui';

/** Where the account is signed in: each session (device, address, times) and its revocation. */
export function Sessions() {
  const sessions = useLoad((signal) => ok(api.GET('/auth/sessions', { signal })), []);
  const [error, setError] = useState('');
  const [note, setNote] = useState('');
  const act = (action: () => Promise<string>) => async () => {
    setError('');
    setNote('');
    try {
      setNote((await action()) ?? '');
      sessions.reload();
    } catch (err) {
      setError(message(err));
    }
  };
  const revoke = (s: SignInSession) =>
    act(async () => {
      await ok(api.DELETE('/auth/sessions/{session_id}', { params: { path: { session_id: s.id } } }));
      return `The session on ${s.device} is signed out.`;
    });
  const revokeOthers = act(async () => {
    const { revoked } = await ok(api.DELETE('/auth/sessions'));
    return `${revoked} other session${revoked === 1 ? '' : 's'} signed out.`;
  });
  return (
    <>
      <Alert>{error}</Alert>
      {note && (
        <p role="status" class="ok">
          {note}
        </p>
      )}
      <Loaded state={sessions} label="sessions">
        {(list) => (
          <>
            <ul class="cards sessions">
              {list.map((s) => (
                <li key={s.id}>
                  <span>
                    <strong>{s.device || 'Unknown device'}</strong>
                    {s.current && <span class="badge">this browser</span>}
                    <br />
                    <span class="muted">
                      from {s.ip}, signed in {new Date(s.created_at).toLocaleString()}, last seen{' '}
                      {new Date(s.last_seen_at).toLocaleString()}
                    </span>
                  </span>
                  {!s.current && (
                    <ConfirmButton
                      label="Revoke"
                      subject={`session on ${s.device || 'an unknown device'} from ${s.ip}`}
                      confirm={`Sign out the session on ${s.device} from ${s.ip}?`}
                      onConfirm={revoke(s)}
                    />
                  )}
                </li>
              ))}
            </ul>
            {list.some((s) => !s.current) && (
              <ConfirmButton
                label="Revoke every other session"
                confirm="Sign out every session but this one?"
                onConfirm={revokeOthers}
              />
            )}
          </>
        )}
      </Loaded>
    </>
  );
}
