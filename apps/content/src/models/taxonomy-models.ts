import { Schema, type Connection, type Model } from 'mongoose';

/** Categories and tags are named by a slug; they are created on first use by a post. */
interface TaxonomyDoc {
  _id: string;
  name: string;
}

const categorySchema = new Schema<TaxonomyDoc>(
  { _id: String, name: String },
  { versionKey: false, collection: 'categories' },
);
const tagSchema = new Schema<TaxonomyDoc>({ _id: String, name: String }, { versionKey: false, collection: 'tags' });

export type TaxonomyModel = Model<TaxonomyDoc>;
export function categoryModel(connection: Connection): TaxonomyModel {
  return connection.models.Category ?? connection.model<TaxonomyDoc>('Category', categorySchema);
}
export function tagModel(connection: Connection): TaxonomyModel {
  return connection.models.Tag ?? connection.model<TaxonomyDoc>('Tag', tagSchema);
}
