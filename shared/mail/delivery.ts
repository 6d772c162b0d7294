import { conditionalPut, deleteItem } from '#db/items';
import { IF_ABSENT } from '#db/steps';
import { keys } from '#db/keys';

const SENT_MARKER_DAYS = 7;

/**
 * SQS delivers at least once, so each message id is claimed with a conditional write before it is
 * sent: a redelivered message finds its claim (false) and is not sent again. Claims expire by TTL.
 */
export const claimMail = (id: string, now: Date) =>
  conditionalPut(
    { ...keys.mailSent(id), expires_at_epoch: Math.floor(now.getTime() / 1000) + SENT_MARKER_DAYS * 86_400 },
    IF_ABSENT,
  );

/** Gives a claim back when sending failed, so the retry may send. */
export const releaseMail = async (id: string) => {
  await deleteItem(keys.mailSent(id));
};
