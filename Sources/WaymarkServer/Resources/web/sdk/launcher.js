// The launcher part: a catalog's checklists and its help, loaded with a catalog that has either
// (/sdk/VERSION/launcher.js). The client hands the guide what it hears and the progress it syncs.

import { Checklists } from "./checklists.js";
import { Help } from "./help.js";

/** What a page runs of a catalog's checklists (`lists`) and help (`help`). */
export class Guide {
  constructor(client, catalog, shared) {
    this.lists = catalog.checklists ? new Checklists(client, catalog.checklists, shared) : null;
    this.help = catalog.articles ? new Help(client, catalog, this) : null;
  }

  record(name, target, time, props) {
    this.lists?.record(name, target, time, props);
  }

  setContext(values, time) {
    this.lists?.setContext(values, time);
  }

  /** Progress from the user's other devices. */
  merge(progress) {
    this.lists?.merge(progress);
  }

  /** What is shared with the user's other devices. */
  progress() {
    return this.lists?.progress();
  }

  stop() {
    this.lists?.stop();
    this.help?.stop();
  }
}
