/** At most this many custom field definitions per project. */
export const MAX_CUSTOM_FIELDS = 50;
