// Places rows and panels left to right on Grafana's 24-column grid.
import * as dashboard from "@grafana/grafana-foundation-sdk/dashboard";
import type * as cog from "@grafana/grafana-foundation-sdk/cog";

// What every panel builder of the SDK offers.
export interface PanelLike extends cog.Builder<dashboard.Panel> {
  id(id: number): unknown;
  gridPos(gridPos: dashboard.GridPos): unknown;
}

export class Layout {
  private x = 0;
  private y = 0;
  private rowH = 0;
  private nextId = 1;
  readonly items: (dashboard.RowBuilder | PanelLike)[] = [];

  // An expanded row: its panels follow it in the dashboard's panel list
  // (Grafana nests panels only in collapsed rows).
  row(title: string): void {
    this.newline();
    this.items.push(
      new dashboard.RowBuilder(title)
        .id(this.nextId++)
        .gridPos({ x: 0, y: this.y, w: 24, h: 1 }),
    );
    this.y += 1;
  }

  // Width w and height h in grid units; a panel that does not fit the line
  // starts the next one.
  add(w: number, h: number, panel: PanelLike): void {
    if (this.x + w > 24) this.newline();
    panel.id(this.nextId++);
    panel.gridPos({ x: this.x, y: this.y, w, h });
    this.items.push(panel);
    this.x += w;
    this.rowH = Math.max(this.rowH, h);
  }

  private newline(): void {
    if (this.x) this.y += this.rowH;
    this.x = 0;
    this.rowH = 0;
  }
}
