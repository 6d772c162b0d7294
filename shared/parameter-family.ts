/**
 * A family of query parameters named by a pattern (the lists' `cf.<key>`), which a query schema takes
 * through its catchall. The schema carries the family as metadata (`.meta(parameterFamily(…))`, in its
 * JSON Schema under PARAMETER_FAMILY) and the OpenAPI builder (`#http/openapi`) documents it as one
 * parameter: an object, `style: form` with `explode`, whose property names are the parameters' names
 * (OpenAPI 3's way to describe free-form query parameters). A leaf: the domain declares it, shared/http reads it.
 */
export const PARAMETER_FAMILY = 'x-parameter-family';

export interface ParameterFamily {
  /** The name the document gives the family (never sent itself: its properties are). */
  name: string;
  /** What each parameter's name matches. */
  pattern: string;
  description: string;
}

export const parameterFamily = (family: ParameterFamily) => ({ [PARAMETER_FAMILY]: family });
