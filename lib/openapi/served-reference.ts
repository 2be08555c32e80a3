import { type RouteModules, servedDocument } from "./document";
import { type ApiReferenceModel, type OpenApiDocumentLike, referenceModel } from "./reference";

let model: ApiReferenceModel | undefined;

/** The reference page's model of the served document: read once per process, as the document is built. */
export function servedReferenceModel(modules: RouteModules): ApiReferenceModel {
  model ??= referenceModel(JSON.parse(servedDocument(modules).text) as OpenApiDocumentLike);
  return model;
}
